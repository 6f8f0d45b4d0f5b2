/**
 * Anti-lockout under concurrency: with an organization key (no user of its own), two resources
 * in one run each take ORG_ADMIN, or membership, from one of the organization's last two admins.
 * Each alone would be allowed; together they would leave nobody able to manage the organization.
 * Admin removals are decided one at a time against a fresh members list (lockout.ts), so one of
 * them is refused and the organization keeps an admin.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import type { EngineStack } from "../../harness/engineStack";
import { RunError } from "../../harness/runResult";
import * as reviewadmin from "../../provider";
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
