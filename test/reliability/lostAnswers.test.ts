/**
 * The fault suite, for the routes whose lost answer the provider handles alone: the service does
 * the write and the answer is lost (the emulator drops the connection after the handler ran).
 * Idempotent routes are sent again and the run converges by itself; a re-send is never sent again
 * (one email per trigger), and the next up records it. Each case loses exactly one answer (the
 * emulator's fault script), and each run is a Pulumi run of the resource (the in-process driver).
 * The creates that cannot be sent again (a dataset, a source file, its parts and completion), whose
 * failures the engine keeps as partial state, are proved under the engine:
 * test/engine/lostAnswers.test.ts.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { useResourceWorld } from "../support/providerWorld";
import { errorOf } from "../support/scenario";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;

const { world, store, calls, res } = useResourceWorld();

/** The next request of `operation` is carried out, and its answer lost. */
const loseAnswerOf = (operation: string) => world().emu.traffic.faults.set({ script: [{ drop: "after" }], operations: [operation] });

/** One run of one resource: an up of `inputs` (or a destroy), and the step it took. */
const up = (kind: string, name: string, inputs: Record<string, unknown>) =>
  world().run(async (run) => (await res(run, name, kind)).up(inputs));
const destroy = (kind: string, name: string) => world().run(async (run) => (await res(run, name, kind)).destroy());

/** An up that changes nothing more: the program and the platform agree. */
async function expectConverged(kind: string, name: string, inputs: Record<string, unknown>): Promise<void> {
  expect((await up(kind, name, inputs)).op).toBe("same");
}

describe("a lost answer after each write the provider can repeat", () => {
  it("E19 (add or invite): sent again, one invitation", async () => {
    const zoe = { organizationId: ORG, email: "zoe@example.com", permissions: ["AI_ADMIN"] };
    loseAnswerOf("PostOrganizationUsers");
    expect((await up("OrgMember", "zoe", zoe)).op).toBe("create");
    expect(calls("PostOrganizationUsers")).toBe(2);
    expect(
      store()
        .invitations.of(ORG)
        .filter((i) => i.email === "zoe@example.com"),
    ).toHaveLength(1);
    await expectConverged("OrgMember", "zoe", zoe);
  });

  it("E22 (update member): sent again, and applied once", async () => {
    const grace = { organizationId: ORG, email: "grace@northwind.example", permissions: ["AI_ADMIN"] };
    loseAnswerOf("PatchOrganizationUser");
    await up("OrgMemberPermissions", "grace", grace);
    expect(store().members.get(ORG, store().users.findByEmail("grace@northwind.example")!.id).permissions).toEqual(["AI_ADMIN"]);
    await expectConverged("OrgMemberPermissions", "grace", grace);
  });

  it("E20 and E13 (remove member, delete invitation): a repeat finding it gone counts as done", async () => {
    await up("OrgMember", "barbara", { organizationId: ORG, email: "barbara@northwind.example" });
    loseAnswerOf("DeleteOrganizationUser");
    await destroy("OrgMember", "barbara");
    world().emu.traffic.faults.clear();
    const barbara = store().users.findByEmail("barbara@northwind.example");
    expect(barbara && store().members.find(ORG, barbara.id)).toBeFalsy();
    expect(world().states.get("OrgMember/barbara")).toBeUndefined();

    await up("Invitation", "pending", { organizationId: ORG, email: SEEDED.invitations.pending });
    loseAnswerOf("DeleteOrganizationInvitation");
    await destroy("Invitation", "pending");
    expect(store().invitations.find(ORG, SEEDED.invitations.pending)).toBeUndefined();
    expect(world().states.get("Invitation/pending")).toBeUndefined();
  });

  it("E15 (re-send): not sent again; the next up records it without a second email", async () => {
    const invite = (trigger: string) => ({ organizationId: ORG, email: SEEDED.invitations.pending, resendTrigger: trigger });
    await up("Invitation", "pending", invite("1"));
    store().clock.advance(60_000);
    loseAnswerOf("PostOrganizationInvitationResend");
    const failed = await errorOf(up("Invitation", "pending", invite("2")));
    expect(failed.message).toMatch(/updating Invitation of new\.hire@northwind\.example to organization 102: .*ECONNRESET|UND_ERR|socket/i);
    expect(calls("PostOrganizationInvitationResend")).toBe(1);
    const next = await up("Invitation", "pending", invite("2"));
    expect(next.op).toBe("update");
    expect(calls("PostOrganizationInvitationResend")).toBe(1); // one email for one trigger change
    expect(next.outs.resendTrigger).toBe("2");
    await expectConverged("Invitation", "pending", invite("2"));
  });

  it("E26 and E24 (set and remove database permissions): sent again", async () => {
    const alan = { databaseId: DB, userId: SEEDED.users.member, permissions: ["DB_DELETE"] };
    loseAnswerOf("PutDatabaseUser");
    await up("DatabaseUserPermissions", "alan", alan);
    expect(store().databases.findUser(DB, SEEDED.users.member)?.permissions).toEqual(["DB_DELETE"]);
    await expectConverged("DatabaseUserPermissions", "alan", alan);
    loseAnswerOf("DeleteDatabaseUser");
    await destroy("DatabaseUserPermissions", "alan");
    expect(store().databases.findUser(DB, SEEDED.users.member)).toBeUndefined();
  });

  it("E5 (custodian sync): sent again (the sync overwrites)", async () => {
    const custodians = { directoryId: SEEDED.directories.org, csv: "email,name\nzoe@example.com,Zoe\n" };
    loseAnswerOf("PostDirectoryCustodians");
    await up("CustodianDirectorySync", "custodians", custodians);
    expect(calls("PostDirectoryCustodians")).toBe(2);
    await expectConverged("CustodianDirectorySync", "custodians", custodians);
  });
});
