/**
 * Anti-lockout under concurrency: with an organization key (no user of its own), two resources
 * in one run each take ORG_ADMIN, or membership, from one of the organization's last two admins.
 * Each alone would be allowed; together they would leave nobody able to manage the organization.
 * Admin removals are decided one at a time against a fresh members list (lockout.ts), so one of
 * them is refused and the organization keeps an admin.
 *
 * And the rule's reach (issue 54): a database's last DB_ADMIN is kept only when no one else
 * administers it. A DB_ADMIN given in the web app on a database whose org admins administer it
 * (orgAdminAccess on) goes at the next up of the baseline, said at preview; the cases the service
 * needs stay refused.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import type { EngineStack } from "../../harness/engineStack";
import { RunError } from "../../harness/runResult";
import * as reviewadmin from "../../provider";
import { control } from "../support/emulatorHttp";
import { useProgramWorld } from "../support/programWorld";

const ORG = SEEDED.org;

const world = useProgramWorld("lockout");

/** A fresh world where Ada and Barbara are the organization's only two org admins, and a stack using the organization key. */
function twoAdmins(): { s: EngineStack; ada: number; barbara: number } {
  const s = world.freshStack("orgKey"); // resets the world first
  const ada = world.emu.store.users.findByEmail("ada@northwind.example")!.id;
  const barbara = world.emu.store.users.findByEmail("barbara@northwind.example")!.id;
  world.emu.store.members.update(ORG, barbara, { permissions: ["ORG_ADMIN"] });
  const admins = world.emu.store.members
    .of(ORG)
    .filter((m) => m.permissions.includes("ORG_ADMIN"))
    .map((m) => m.userId);
  expect(admins.sort()).toEqual([ada, barbara].sort());
  return { s, ada, barbara };
}

const adminsLeft = () => world.emu.store.members.of(ORG).filter((m) => m.permissions.includes("ORG_ADMIN")).length;
const errorsOf = (run: Promise<unknown>) =>
  run.then(
    () => "",
    (e: unknown) => (e instanceof RunError ? e.result.errors.join("\n") : String(e)),
  );

describe("the last two org admins, removed in parallel", () => {
  it("two OrgMemberPermissions taking ORG_ADMIN from both: one is refused, one admin stays", async () => {
    const { s } = twoAdmins();
    const errors = await errorsOf(
      s.up(() => {
        new reviewadmin.OrgMemberPermissions("ada", { organizationId: ORG, email: "ada@northwind.example", permissions: [] });
        new reviewadmin.OrgMemberPermissions("barbara", { organizationId: ORG, email: "barbara@northwind.example", permissions: [] });
      }),
    );
    expect(errors).toMatch(/refused: .* is the last org admin of organization 102/);
    expect(adminsLeft()).toBe(1);
  });

  it("two OrgMember deletes of both admins: one is refused, one admin stays", async () => {
    const { s } = twoAdmins();
    await s.up(() => {
      new reviewadmin.OrgMember("ada", { organizationId: ORG, email: "ada@northwind.example" });
      new reviewadmin.OrgMember("barbara", { organizationId: ORG, email: "barbara@northwind.example" });
    });
    const errors = await errorsOf(s.destroy());
    expect(errors).toMatch(/refused: .* is the last org admin of organization 102/);
    expect(adminsLeft()).toBe(1);
  });

  it("an OrgMember and a roster, each removing one admin: one is refused, one admin stays", async () => {
    const { s } = twoAdmins();
    const everyone = Object.fromEntries(
      world.emu.store.members
        .of(ORG)
        .map((m) => world.emu.store.users.get(m.userId).email.toLowerCase())
        .filter((e) => e !== "ada@northwind.example" && e !== "barbara@northwind.example")
        .map((e) => [e, {}]),
    );
    const errors = await errorsOf(
      s.up(() => {
        // The roster takes ORG_ADMIN from Barbara; the OrgMember takes it from Ada.
        new reviewadmin.OrganizationMembers("legal", {
          organizationId: ORG,
          mode: "additive",
          members: { ...everyone, "barbara@northwind.example": { permissions: [] } },
        });
        new reviewadmin.OrgMember("ada", { organizationId: ORG, email: "ada@northwind.example", permissions: [] });
      }),
    );
    // Which of the two is refused depends on which the engine checks first; either wording says so.
    expect(errors).toMatch(/refused: .*(last org admin|with no org admin)/);
    expect(adminsLeft()).toBe(1);
  });
});

describe("a database's DB_ADMIN given in the web application, against a baseline of two DB_UPLOAD users", () => {
  const DB = SEEDED.databases.open;
  const U = SEEDED.users;
  /** The baseline as adopted: database 2001 is Alan's and Margaret's DB_UPLOAD. */
  const baseline = () => {
    new reviewadmin.DatabaseUsers("nvc", {
      databaseId: DB,
      mode: "authoritative",
      users: { [U.member]: ["DB_UPLOAD"], [U.multiOrgMember]: ["DB_UPLOAD"] },
    });
  };
  /** A fresh stack at the baseline, then Barbara made the database's only DB_ADMIN in the web app, a moment later. */
  async function drifted(keyName?: string): Promise<EngineStack> {
    const s = world.freshStack(keyName);
    world.emu.store.databases.setUser(DB, U.member, ["DB_UPLOAD"]);
    await s.up(baseline);
    world.emu.store.clock.advance(2_000);
    const put = await control(world.emu.url, "PUT", `/databases/${DB}/users/${U.databaseAdmin}`, { permissions: ["DB_ADMIN"] });
    expect(put.status).toBeLessThan(300);
    return s;
  }
  const permsOf = (userId: number) => world.emu.store.databases.findUser(DB, userId)?.permissions ?? [];

  it("the drift job's preview says who loses DB_ADMIN, and an up with no flag returns the baseline: org admins still administer it", async () => {
    const s = await drifted();
    const preview = await s.preview(baseline, { refresh: true });
    const said = preview.logs.map((l) => l.line).join("\n");
    expect(said).toMatch(
      /Barbara Liskov <barbara@northwind\.example> \(user 1004\) loses DB_ADMIN of database 2001, its last DB_ADMIN; organization 102's org admin still administers it \(orgAdminAccess is on\)/,
    );
    expect(said).not.toMatch(/refused/);
    expect(permsOf(U.databaseAdmin)).toEqual(["DB_ADMIN"]); // a preview writes nothing

    const up = await s.up(baseline, { refresh: true });
    expect(up.logs.map((l) => l.line).join("\n")).not.toMatch(/refused/);
    expect(permsOf(U.databaseAdmin)).toEqual([]);
    expect(permsOf(U.member)).toEqual(["DB_UPLOAD"]);
    expect(permsOf(U.multiOrgMember)).toEqual(["DB_UPLOAD"]);
    // The baseline holds: nothing more to do.
    await s.preview(baseline, { refresh: true, expectNoChanges: true });
  });

  it("still refused: the last DB_ADMIN when no org admin is left to administer the database", async () => {
    const s = await drifted("orgKey");
    world.emu.store.members.update(ORG, U.orgAdmin, { permissions: [] }); // organization 102 has no org admin now
    const errors = await errorsOf(s.up(baseline, { refresh: true }));
    expect(errors).toMatch(
      /refused: Barbara Liskov <barbara@northwind\.example> \(user 1004\) is the last DB_ADMIN of database 2001, and organization 102 has no org admin to administer it/,
    );
    expect(permsOf(U.databaseAdmin)).toEqual(["DB_ADMIN"]);
  });

  it("still refused: the API key's own access", async () => {
    const s = world.freshStack(); // Ada's own key
    const errors = await errorsOf(
      s.up(() => {
        new reviewadmin.OrgMemberPermissions("ada", { organizationId: ORG, email: "ada@northwind.example", permissions: [] });
      }),
    );
    expect(errors).toMatch(
      /refused: it would take ORG_ADMIN from Ada Lovelace <ada@northwind\.example> \(user 1001\), the user of the API key in use/,
    );
    expect(world.emu.store.members.find(ORG, U.orgAdmin)?.permissions).toEqual(["ORG_ADMIN"]);
  });
});
