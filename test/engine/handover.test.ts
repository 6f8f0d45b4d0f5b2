/**
 * Program edits that must never cost access (handover.ts): a resource renamed without aliases,
 * moved into a component, a person moved between a per-person resource and a roster, and a grant
 * moved into a DatabaseUsers roster (a replace whose create fails: engine/identity.test.ts). Each edit runs as two
 * `pulumi up`s under the real engine (a fresh plugin per run); after each up the
 * platform equals the program, nothing the program still declares was removed, and a refresh
 * followed by a preview shows no drift.
 */
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import type { EngineStack as Stack } from "../../harness/engineStack";
import * as reviewadmin from "../../provider";
import { invitations, people } from "../../examples/access-baseline/access";
import { useProgramWorld } from "../support/programWorld";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const U = SEEDED.users;
/** The write operations that remove access. */
const REMOVALS = ["DeleteOrganizationUser", "DeleteOrganizationInvitation", "DeleteDatabaseUser", "PatchOrganizationUser"] as const;

/** A component to move resources into, as a refactored program would. */
class Team extends pulumi.ComponentResource {
  constructor(name: string) {
    super("acme:access:Team", name, {});
  }
}

const world = useProgramWorld("handover");

/** Requests of each removing operation sent since `since` (a log length). */
function removalsSince(since: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of world.emu.traffic.log.list().slice(since)) {
    if ((REMOVALS as readonly string[]).includes(entry.operation ?? "")) out[entry.operation!] = (out[entry.operation!] ?? 0) + 1;
  }
  return out;
}

const logLength = () => world.emu.traffic.log.list().length;
const logsOf = (r: { logs: { line: string }[] }) => r.logs.map((l) => l.line).join("\n");
const member = (userId: number) => world.emu.store.members.find(ORG, userId);
const grantOf = (userId: number, db = DB) => world.emu.store.databases.findUser(db, userId)?.permissions;

/** Refresh, then preview: both must find nothing to change. */
async function expectNoDrift(s: Stack): Promise<void> {
  const refreshed = await s.refresh();
  expect(refreshed.steps.filter((st) => st.op !== "refresh-same").map((st) => `${st.name}: ${st.op} ${st.changedKeys ?? ""}`)).toEqual([]);
  const preview = await s.preview(lastProgram!);
  expect(preview.steps.filter((st) => st.op !== "same").map((st) => `${st.name}: ${st.op}`)).toEqual([]);
}

let lastProgram: (() => void) | undefined;
/** `pulumi up` of a program; remembers it for the drift check. */
async function up(s: Stack, program: () => void) {
  lastProgram = program;
  return s.up(program);
}

describe("renames and moves hand over instead of removing", () => {
  it("OrgMember renamed, then moved into a component: the member keeps their membership and permissions", async () => {
    const s = world.freshStack();
    const declare = (name: string, opts?: pulumi.CustomResourceOptions) =>
      new reviewadmin.OrgMember(name, { organizationId: ORG, email: "barbara@northwind.example", permissions: ["AI_ADMIN"] }, opts);

    await up(s, () => void declare("barbara"));
    const barbara = world.emu.store.users.findByEmail("barbara@northwind.example")!.id;
    expect(member(barbara)?.permissions).toEqual(["AI_ADMIN"]);

    let since = logLength();
    const renamed = await up(s, () => void declare("barbara-liskov"));
    expect(renamed.steps.map((st) => [st.name, st.op])).toEqual(
      expect.arrayContaining([
        ["barbara-liskov", "create"],
        ["barbara", "delete"],
      ]),
    );
    expect(removalsSince(since)).toEqual({});
    expect(member(barbara)?.permissions).toEqual(["AI_ADMIN"]);
    expect(logsOf(renamed)).toMatch(
      /deleting OrgMember barbara@northwind\.example in organization 102: handed over to OrgMember barbara@northwind\.example/,
    );
    await expectNoDrift(s);

    since = logLength();
    await up(s, () => {
      const team = new Team("investigations");
      declare("barbara-liskov", { parent: team });
    });
    expect(removalsSince(since)).toEqual({});
    expect(member(barbara)?.permissions).toEqual(["AI_ADMIN"]);
    await expectNoDrift(s);
  });

  it("a person moves from an OrgMember into an authoritative roster and back: nobody is removed", async () => {
    const s = world.freshStack();
    const alan = U.member;
    const everyoneElse = () =>
      Object.fromEntries(
        world.emu.store.members
          .of(ORG)
          .map((m) => world.emu.store.users.get(m.userId).email.toLowerCase())
          .filter((e) => e !== "alan@northwind.example")
          .map((e) => [e, {}]),
      );
    const others = everyoneElse();
    const roster = (withAlan: boolean) =>
      new reviewadmin.OrganizationMembers("legal", {
        organizationId: ORG,
        mode: "authoritative",
        protectedEmails: [SEEDED.invitations.pending, SEEDED.invitations.expired],
        members: withAlan ? { ...others, "alan@northwind.example": { permissions: ["AI_ADMIN"] } } : others,
      });

    await up(s, () => {
      roster(false);
      new reviewadmin.OrgMember("alan", { organizationId: ORG, email: "alan@northwind.example", permissions: ["AI_ADMIN"] });
    });
    expect(member(alan)?.permissions).toEqual(["AI_ADMIN"]);

    let since = logLength();
    const into = await up(s, () => void roster(true));
    expect(into.steps.find((st) => st.name === "alan")?.op).toBe("delete");
    expect(removalsSince(since)).toEqual({});
    expect(member(alan)?.permissions).toEqual(["AI_ADMIN"]);
    await expectNoDrift(s);

    since = logLength();
    const back = await up(s, () => {
      roster(false);
      new reviewadmin.OrgMember("alan-again", { organizationId: ORG, email: "alan@northwind.example", permissions: ["AI_ADMIN"] });
    });
    expect(removalsSince(since)).toEqual({});
    expect(member(alan)?.permissions).toEqual(["AI_ADMIN"]);
    expect(logsOf(back)).toMatch(/left alan@northwind\.example in place: OrgMember "alan-again" declares them in this program/);
    await expectNoDrift(s);
  });

  it("a pending Invitation renamed stays pending; a person moves between OrgMemberPermissions, UserIdentifiers and an OrgMember", async () => {
    const s = world.freshStack();
    const margaret = world.emu.store.users.findByEmail("margaret@northwind.example")!.id;
    const invite = (name: string) =>
      new reviewadmin.Invitation(name, { organizationId: ORG, email: "zoe@example.com", permissions: ["AI_ADMIN"] });

    await up(s, () => {
      invite("zoe");
      new reviewadmin.OrgMemberPermissions("margaret-perms", {
        organizationId: ORG,
        email: "margaret@northwind.example",
        permissions: ["CLOUD_MANAGEMENT_ADMIN"],
      });
      new reviewadmin.UserIdentifiers("margaret-ids", {
        organizationId: ORG,
        userId: margaret,
        identifiers: [{ abbreviation: "MH", label: "Margaret Hamilton" }],
      });
    });
    const invitationBefore = structuredClone(world.emu.store.invitations.find(ORG, "zoe@example.com"));

    const since = logLength();
    const moved = await up(s, () => {
      invite("zoe-renamed");
      new reviewadmin.OrgMemberPermissions("margaret-permissions", {
        organizationId: ORG,
        userId: margaret,
        permissions: ["CLOUD_MANAGEMENT_ADMIN"],
      });
      new reviewadmin.OrgMember("margaret", {
        organizationId: ORG,
        email: "margaret@northwind.example",
        userIdentifiers: [{ abbreviation: "MH", label: "Margaret Hamilton" }],
      });
    });
    expect(
      moved.steps
        .filter((st) => st.op === "delete")
        .map((st) => st.name)
        .sort(),
    ).toEqual(["margaret-ids", "margaret-perms", "zoe"]);
    expect(removalsSince(since)).toEqual({});
    expect(world.emu.store.invitations.find(ORG, "zoe@example.com")).toEqual(invitationBefore);
    expect(member(margaret)?.permissions).toEqual(["CLOUD_MANAGEMENT_ADMIN"]);
    expect(member(margaret)?.userIdentifiers).toEqual([{ abbreviation: "MH", label: "Margaret Hamilton" }]);
    await expectNoDrift(s);
  });

  it("a DatabaseUserPermissions renamed, then moved into a DatabaseUsers roster and back, keeps the grant", async () => {
    const s = world.freshStack();
    const alan = U.member;
    const grant = (name: string) =>
      new reviewadmin.DatabaseUserPermissions(name, { databaseId: DB, userId: alan, permissions: ["DB_UPLOAD"] });
    const others = Object.fromEntries(
      world.emu.store.databases
        .usersOf(DB)
        .filter((d) => d.userId !== alan)
        .map((d) => [String(d.userId), d.permissions]),
    );
    const roster = (withAlan: boolean) =>
      new reviewadmin.DatabaseUsers("nvc", {
        databaseId: DB,
        mode: "authoritative",
        users: withAlan ? { ...others, [String(alan)]: ["DB_UPLOAD"] } : others,
      });

    await up(s, () => void roster(true));
    expect(grantOf(alan)).toEqual(["DB_UPLOAD"]);

    // Out of the roster into a DatabaseUserPermissions, renamed, back into the roster.
    for (const program of [
      () => void (roster(false), grant("alan-nvc")),
      () => void (roster(false), grant("alan-upload")),
      () => void roster(true),
    ]) {
      const since = logLength();
      await up(s, program);
      expect(removalsSince(since)).toEqual({});
      expect(grantOf(alan)).toEqual(["DB_UPLOAD"]);
      await expectNoDrift(s);
    }
  });
  // A replace whose create fails keeps the old grant: test/engine/identity.test.ts, "one whose create
  // fails removes nothing, and the next run with the program fixed finishes it", proves it and more.
});

describe("a refactor of the access-baseline example", () => {
  it("every resource renamed into a component leaves the platform untouched and sends no delete", async () => {
    const s = world.freshStack();
    const programOf = (prefix: string, parent?: pulumi.Resource) => () => {
      const opts = parent ? { parent } : undefined;
      const roster = new reviewadmin.OrganizationMembers(
        `${prefix}members`,
        {
          organizationId: ORG,
          mode: "additive",
          members: Object.fromEntries(
            people.map((p) => [
              p.email,
              { firstName: p.firstName, lastName: p.lastName, permissions: p.permissions, userIdentifiers: p.identifiers },
            ]),
          ),
        },
        opts,
      );
      for (const person of people) {
        for (const [database, permissions] of Object.entries(person.databases ?? {})) {
          const userId = roster.members.apply((m) => m[person.email]!.userId!);
          new reviewadmin.DatabaseUserPermissions(
            `${prefix}${person.email.split("@")[0]}-db${database}`,
            { databaseId: Number(database), userId, permissions },
            opts,
          );
        }
      }
      for (const i of invitations) {
        new reviewadmin.Invitation(
          `${prefix}invite-${i.email.split("@")[0]}`,
          { organizationId: ORG, email: i.email, firstName: i.firstName, lastName: i.lastName, permissions: i.permissions },
          opts,
        );
      }
    };
    await up(s, programOf(""));
    const before = structuredClone(world.emu.store.toJSON());
    const since = logLength();
    const refactored = await up(s, () => programOf("baseline-", new Team("baseline"))());
    expect(refactored.steps.filter((st) => st.op === "delete").length).toBeGreaterThan(3);
    expect(removalsSince(since)).toEqual({});
    const after = world.emu.store.toJSON();
    expect({ ...after, events: undefined, idCounters: undefined }).toEqual({ ...before, events: undefined, idCounters: undefined });
    await expectNoDrift(s);
  });
});

describe("pending people", () => {
  it("an invitee with identifiers shows no change until they accept; the first up after applies them", async () => {
    const s = world.freshStack();
    const program = () =>
      void new reviewadmin.OrgMember("newcomer", {
        organizationId: ORG,
        email: "linus@example.org",
        permissions: ["AI_ADMIN"],
        userIdentifiers: [{ abbreviation: "LT", label: "Linus Torvalds" }],
      });
    await up(s, program);
    expect(s.find("newcomer")?.outputs.status).toBe("invited");
    // The drift check a scheduled job runs: refresh, then preview with --expect-no-changes.
    await expectNoDrift(s);
    expect((await s.up(program, { expectNoChanges: true })).changes).toBe(0);

    const { user } = world.emu.store.members.acceptInvitation(ORG, "linus@example.org");
    const applied = await up(s, program);
    expect(applied.steps.find((st) => st.name === "newcomer")?.op).toBe("update");
    expect(member(user.id)?.userIdentifiers).toEqual([{ abbreviation: "LT", label: "Linus Torvalds" }]);
    expect(s.find("newcomer")?.outputs).toMatchObject({ status: "active", userId: user.id });
    await expectNoDrift(s);
  });
});
