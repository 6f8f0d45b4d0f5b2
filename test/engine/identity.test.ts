/**
 * Identity under the real engine: what a rename, a replacement or a move of a person between
 * resources does to the platform. Each case runs `pulumi up` twice on one stack (inline programs,
 * test/support/programWorld.ts) and reads the emulator's request log and world.
 *
 * - `aliases` make a rename nothing at all: no create, no delete, no request that writes.
 * - A replacement is create-first: the new grant exists before the old one goes; a replacement
 *   whose create fails deletes nothing (the engine never reaches its deletes), and the next run
 *   finishes it.
 * - A person moved from an authoritative roster to an OrgMember registered after it keeps their
 *   membership, also with `--parallel 1` and with other resources between the two: the roster
 *   knows from the program what else it declares (declarations.ts), not from a quiet moment.
 * - `replaceOnChanges` does nothing for these resources (a documented limit: the dynamic-provider
 *   plugin sends the engine no changed keys).
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { RunError } from "../../harness/runResult";
import * as reviewadmin from "../../provider";
import { useProgramWorld } from "../support/programWorld";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const U = SEEDED.users;
const world = useProgramWorld("identity");

const logLength = () => world.emu.traffic.log.list().length;
/** The requests since `since` that are not reads, as "METHOD operation". */
const writesSince = (since: number) =>
  world.emu.traffic.log
    .list()
    .slice(since)
    .filter((e) => e.method !== "GET" && !e.path.startsWith("/_"))
    .map((e) => `${e.method} ${e.operation}`);
const opsOf = (r: { steps: { name: string; op: string }[] }) => Object.fromEntries(r.steps.map((s) => [s.name, s.op]));
const grantOf = (userId: number) => world.emu.store.databases.findUser(DB, userId)?.permissions;
const member = (userId: number) => world.emu.store.members.find(ORG, userId);

describe("renames", () => {
  it("with aliases, a renamed OrgMember, roster and grant are the same resources: no create, no delete, nothing written", async () => {
    const s = world.freshStack();
    const program = (suffix: string, aliases: boolean) => () => {
      const alias = (old: string) => (aliases ? { aliases: [{ name: old }] } : {});
      new reviewadmin.OrgMember(
        `barbara${suffix}`,
        { organizationId: ORG, email: "barbara@northwind.example", permissions: ["AI_ADMIN"] },
        alias("barbara"),
      );
      new reviewadmin.DatabaseUserPermissions(
        `alan-db${suffix}`,
        { databaseId: DB, userId: U.member, permissions: ["DB_UPLOAD"] },
        alias("alan-db"),
      );
      new reviewadmin.OrganizationMembers(
        `legal${suffix}`,
        {
          organizationId: ORG,
          mode: "additive",
          onUnmanaged: "report",
          members: { "grace@northwind.example": { permissions: ["AI_ADMIN"] } },
        },
        alias("legal"),
      );
    };
    await s.up(program("", false));
    const before = structuredClone(world.emu.store.toJSON());
    const since = logLength();
    const renamed = await s.up(program("-renamed", true), { expectNoChanges: true });
    expect(opsOf(renamed)).toEqual({ "barbara-renamed": "same", "alan-db-renamed": "same", "legal-renamed": "same" });
    expect(writesSince(since)).toEqual([]);
    expect(world.emu.store.toJSON()).toEqual(before);
    expect([...s.state.values()].map((e) => e.name).sort()).toEqual(["alan-db-renamed", "barbara-renamed", "legal-renamed"]);
  });
});

describe("replacements", () => {
  it("are create-first: the new grant exists before the old one is removed", async () => {
    const s = world.freshStack();
    const grant = (userId: number) => () =>
      void new reviewadmin.DatabaseUserPermissions("grant", { databaseId: DB, userId, permissions: ["DB_UPLOAD"] });
    await s.up(grant(U.member));
    const since = logLength();
    const replaced = await s.up(grant(U.unaffiliated));
    expect(opsOf(replaced)).toEqual({ grant: "replace" });
    expect(writesSince(since)).toEqual(["PUT PutDatabaseUser", "DELETE DeleteDatabaseUser"]);
    expect(grantOf(U.unaffiliated)).toEqual(["DB_UPLOAD"]);
    expect(grantOf(U.member)).toBeUndefined();
  });

  it("one whose create fails removes nothing, and the next run with the program fixed finishes it", async () => {
    const s = world.freshStack();
    const grant = (userId: number) => () =>
      void new reviewadmin.DatabaseUserPermissions("grant", { databaseId: DB, userId, permissions: ["DB_DELETE"] });
    await s.up(grant(U.member));
    const since = logLength();
    const failed = await s.up(grant(999_999)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(RunError);
    expect((failed as RunError).result.errors.join("\n")).toMatch(
      /creating DatabaseUserPermissions of user 999999 on database 2001: the service answered 404/,
    );
    expect(writesSince(since).filter((w) => w.startsWith("DELETE"))).toEqual([]);
    expect(grantOf(U.member)).toEqual(["DB_DELETE"]);
    expect(s.find("grant")?.outputs.userId).toBe(U.member);

    const fixed = await s.up(grant(U.unaffiliated));
    expect(opsOf(fixed)).toEqual({ grant: "replace" });
    expect(grantOf(U.unaffiliated)).toEqual(["DB_DELETE"]);
    expect(grantOf(U.member)).toBeUndefined();
    expect([...s.state.values()].filter((e) => e.pendingDelete)).toEqual([]);
    await s.up(grant(U.unaffiliated), { expectNoChanges: true });
  });

  it("replaceOnChanges has no effect: a permissions change stays an update (the plugin sends no changed keys)", async () => {
    const s = world.freshStack();
    const grant = (permissions: ("DB_UPLOAD" | "DB_DELETE")[]) => () =>
      void new reviewadmin.DatabaseUserPermissions(
        "grant",
        { databaseId: DB, userId: U.member, permissions },
        { replaceOnChanges: ["permissions"] },
      );
    await s.up(grant(["DB_UPLOAD"]));
    const changed = await s.up(grant(["DB_DELETE"]));
    expect(opsOf(changed)).toEqual({ grant: "update" });
    expect(grantOf(U.member)).toEqual(["DB_DELETE"]);
  });
});

describe("a person moved from an authoritative roster to an OrgMember registered after it", () => {
  const others = () =>
    Object.fromEntries(
      world.emu.store.members
        .of(ORG)
        .map((m) => world.emu.store.users.get(m.userId).email.toLowerCase())
        .filter((e) => e !== "alan@northwind.example")
        .map((e) => [e, {}]),
    );
  const roster = (members: Record<string, object>) =>
    new reviewadmin.OrganizationMembers("legal", {
      organizationId: ORG,
      mode: "authoritative",
      protectedEmails: [SEEDED.invitations.pending, SEEDED.invitations.expired],
      members,
    });

  it.each([
    ["the engine's default parallelism", undefined],
    ["--parallel 1", 1],
  ])("keeps their membership with %s, with other resources registered between the two", async (_label, parallel) => {
    const s = world.freshStack();
    const rest = others();
    await s.up(() => void roster({ ...rest, "alan@northwind.example": { permissions: ["AI_ADMIN"] } }), { parallel });
    expect(member(U.member)?.permissions).toEqual(["AI_ADMIN"]);

    const moved = () => {
      roster(rest);
      // Slow steps between the roster and the OrgMember: grants on both databases.
      for (const [i, userId] of [U.databaseAdmin, U.unaffiliated, U.multiOrgMember].entries())
        new reviewadmin.DatabaseUserPermissions(`filler-${i}`, { databaseId: DB, userId, permissions: ["DB_UPLOAD"] });
      new reviewadmin.OrgMember("alan", { organizationId: ORG, email: "alan@northwind.example", permissions: ["AI_ADMIN"] });
    };
    const since = logLength();
    const preview = await s.preview(moved, { parallel });
    // The preview already knows: the roster changes (its map), and says it leaves Alan in place.
    expect(preview.logs.map((l) => l.line).join("\n")).not.toMatch(/refused/);
    const up = await s.up(moved, { parallel });
    expect(opsOf(up)).toMatchObject({ legal: "update", alan: "create" });
    expect(writesSince(since).filter((w) => /DeleteOrganization/.test(w))).toEqual([]);
    expect(member(U.member)?.permissions).toEqual(["AI_ADMIN"]);
    expect(up.logs.map((l) => l.line).join("\n")).toMatch(
      /left alan@northwind\.example in place: OrgMember "alan" declares them in this program/,
    );
    // Steady state: nothing to do, whatever the order of checks.
    await s.up(moved, { parallel, expectNoChanges: true });
  });
});
