/**
 * The fault suite: for every route that writes, the service does the write and the answer is
 * lost (the emulator drops the connection after the handler ran). The run either converges by
 * itself (idempotent routes are sent again; completion is asked again) or fails with a message
 * saying what may exist; the next `up` then converges with nothing duplicated, nothing sent twice
 * that should not be (an invitation email, a dataset, a source file), and nothing stuck.
 * Deterministic: each case loses exactly one answer (the emulator's fault script).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import type { EngineStack } from "../../harness/engineStack";
import { RunError } from "../../harness/runResult";
import * as reviewadmin from "../../provider";
import { useProgramWorld } from "../support/programWorld";
import { programFolder } from "../support/providerWorld";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;

const world = useProgramWorld("lost-answers");
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lost-answers-"));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The next request of `operation` is carried out, and its answer lost. */
const loseAnswerOf = (operation: string) => world.emu.traffic.faults.set({ script: [{ drop: "after" }], operations: [operation] });
const sent = (operation: string) => world.emu.traffic.log.list(operation).length;
const failureOf = (run: Promise<unknown>) =>
  run.then(
    () => undefined,
    (e: unknown) => (e instanceof RunError ? e.result.errors.join("\n") : String(e)),
  );

/** An up that changes nothing more: the program and the platform agree. */
async function expectConverged(s: EngineStack, program: () => void): Promise<void> {
  const again = await s.up(program);
  expect(again.steps.filter((st) => st.op !== "same").map((st) => `${st.name}: ${st.op}`)).toEqual([]);
}

describe("a lost answer after each write", () => {
  it("E19 (add or invite): sent again, one invitation", async () => {
    const s = world.freshStack();
    const program = () =>
      void new reviewadmin.OrgMember("zoe", { organizationId: ORG, email: "zoe@example.com", permissions: ["AI_ADMIN"] });
    loseAnswerOf("PostOrganizationUsers");
    await s.up(program);
    expect(sent("PostOrganizationUsers")).toBe(2);
    expect(world.emu.store.invitations.of(ORG).filter((i) => i.email === "zoe@example.com")).toHaveLength(1);
    await expectConverged(s, program);
  });

  it("E22 (update member): sent again, and applied once", async () => {
    const s = world.freshStack();
    const program = () =>
      void new reviewadmin.OrgMemberPermissions("grace", {
        organizationId: ORG,
        email: "grace@northwind.example",
        permissions: ["AI_ADMIN"],
      });
    loseAnswerOf("PatchOrganizationUser");
    await s.up(program);
    expect(world.emu.store.members.get(ORG, world.emu.store.users.findByEmail("grace@northwind.example")!.id).permissions).toEqual([
      "AI_ADMIN",
    ]);
    await expectConverged(s, program);
  });

  it("E20 and E13 (remove member, delete invitation): a repeat finding it gone counts as done", async () => {
    const s = world.freshStack();
    const program = () => {
      new reviewadmin.OrgMember("barbara", { organizationId: ORG, email: "barbara@northwind.example" });
      new reviewadmin.Invitation("pending", { organizationId: ORG, email: SEEDED.invitations.pending });
    };
    await s.up(program);
    loseAnswerOf("DeleteOrganizationUser");
    await s.destroy();
    world.emu.traffic.faults.clear();
    expect(
      world.emu.store.users.findByEmail("barbara@northwind.example") &&
        world.emu.store.members.find(ORG, world.emu.store.users.findByEmail("barbara@northwind.example")!.id),
    ).toBeFalsy();
    const s2 = world.freshStack();
    await s2.up(() => void new reviewadmin.Invitation("pending", { organizationId: ORG, email: SEEDED.invitations.pending }));
    loseAnswerOf("DeleteOrganizationInvitation");
    await s2.destroy();
    expect(world.emu.store.invitations.find(ORG, SEEDED.invitations.pending)).toBeUndefined();
    expect(s2.state.size).toBe(0);
  });

  it("E15 (re-send): not sent again; the next up records it without a second email", async () => {
    const s = world.freshStack();
    const invite = (trigger: string) => () =>
      void new reviewadmin.Invitation("pending", { organizationId: ORG, email: SEEDED.invitations.pending, resendTrigger: trigger });
    await s.up(invite("1"));
    world.emu.store.clock.advance(60_000);
    loseAnswerOf("PostOrganizationInvitationResend");
    const failed = await failureOf(s.up(invite("2")));
    expect(failed).toMatch(/updating Invitation of new\.hire@northwind\.example to organization 102: .*ECONNRESET|UND_ERR|socket/i);
    expect(sent("PostOrganizationInvitationResend")).toBe(1);
    const next = await s.up(invite("2"));
    expect(next.steps.find((st) => st.name === "pending")?.op).toBe("update");
    expect(sent("PostOrganizationInvitationResend")).toBe(1); // one email for one trigger change
    expect(s.find("pending")?.outputs.resendTrigger).toBe("2");
    await expectConverged(s, invite("2"));
  });

  it("E26 and E24 (set and remove database permissions): sent again", async () => {
    const s = world.freshStack();
    const program = () =>
      void new reviewadmin.DatabaseUserPermissions("alan", { databaseId: DB, userId: SEEDED.users.member, permissions: ["DB_DELETE"] });
    loseAnswerOf("PutDatabaseUser");
    await s.up(program);
    expect(world.emu.store.databases.findUser(DB, SEEDED.users.member)?.permissions).toEqual(["DB_DELETE"]);
    await expectConverged(s, program);
    loseAnswerOf("DeleteDatabaseUser");
    await s.destroy();
    expect(world.emu.store.databases.findUser(DB, SEEDED.users.member)).toBeUndefined();
  });

  it("E5 (custodian sync): sent again (the sync overwrites)", async () => {
    const s = world.freshStack();
    const program = () =>
      void new reviewadmin.CustodianDirectorySync("custodians", {
        directoryId: SEEDED.directories.org,
        csv: "email,name\nzoe@example.com,Zoe\n",
      });
    loseAnswerOf("PostDirectoryCustodians");
    await s.up(program);
    expect(sent("PostDirectoryCustodians")).toBe(2);
    await expectConverged(s, program);
  });

  it("up1 (create dataset): never sent again; the error says what may exist and what to do; the next up stops until told", async () => {
    // A program folder of its own: the create in flight is remembered there (.reviewadmin/creates/).
    const s = world.freshStack("orgAdmin", programFolder("lost-answers-"));
    const program =
      (more: object = {}) =>
      () =>
        void new reviewadmin.Dataset("mail", { databaseId: DB, name: "Mail 2026", ...more });
    loseAnswerOf("PostDatabaseDataset");
    const failed = await failureOf(s.up(program()));
    expect(failed).toMatch(
      /creating Dataset 'Mail 2026' in database 2001: .*The service may have created the dataset before its answer was lost, and the API cannot list datasets, so the next up stops rather than create a second one: look for 'Mail 2026' in database 2001 in the web application/,
    );
    expect(sent("PostDatabaseDataset")).toBe(1);
    expect(await failureOf(s.up(program()))).toMatch(
      /an earlier create of dataset 'Mail 2026' in database 2001 was sent at .* set adoptId: <its id>/,
    );
    expect(sent("PostDatabaseDataset")).toBe(1);
    const made = Object.values(world.emu.store.uploads.state.datasets).filter((d) => d.name === "Mail 2026");
    expect(made).toHaveLength(1);
    await s.up(program({ adoptId: made[0]!.id }));
    expect(s.find("mail")?.outputs.datasetId).toBe(made[0]!.id);
    await expectConverged(s, program());
    expect(sent("PostDatabaseDataset")).toBe(1);
  });

  it("up2 to up5 and the part PUT: an upload ends complete, with one source file", async () => {
    const s = world.freshStack("orgAdmin", programFolder("lost-answers-"));
    const file = path.join(dir, "two-parts.bin");
    fs.writeFileSync(file, Buffer.alloc(6 * 1024 * 1024, 7));
    await s.up(() => void new reviewadmin.Dataset("files", { databaseId: DB, name: "Files" }));
    const datasetId = s.find("files")!.outputs.datasetId as number;
    const program = () => {
      new reviewadmin.Dataset("files", { databaseId: DB, name: "Files" });
      new reviewadmin.SourceFile("two", { databaseId: DB, datasetId, path: file, partSize: 5 * 1024 * 1024 });
    };

    // up2 lost: never sent again; the message says a source file may exist.
    loseAnswerOf("PostDatasetFile");
    expect(await failureOf(s.up(program))).toMatch(
      /The service may have created a source file before its answer was lost; if so it stays empty \(UPLOADING\)/,
    );
    expect(sent("PostDatasetFile")).toBe(1);
    // The next up stops, sending nothing, until told; adopting the lost source file uploads into it.
    expect(await failureOf(s.up(program))).toMatch(
      /an earlier create of source file 'two-parts.bin' in dataset \d+ of database 2001 was sent at/,
    );
    expect(sent("PostDatasetFile")).toBe(1);
    const lost = Object.values(world.emu.store.uploads.state.sourceFiles).filter((f) => f.datasetId === datasetId);
    expect(lost).toHaveLength(1);
    await s.up(() => {
      new reviewadmin.Dataset("files", { databaseId: DB, name: "Files" });
      new reviewadmin.SourceFile("two", { databaseId: DB, datasetId, path: file, partSize: 5 * 1024 * 1024, adoptId: lost[0]!.id });
    });
    expect(s.find("two")?.outputs).toMatchObject({ complete: true, sourceFileId: lost[0]!.id });
    expect(sent("PostDatasetFile")).toBe(1);
    await expectConverged(s, program);
    fs.appendFileSync(file, Buffer.from("adopted")); // a new file, so the next round uploads again

    // up3, the PUT and up5, each losing one answer in the same run: the upload still ends complete.
    for (const op of ["PostSourceFilePart", "PutSourceFilePart", "PostSourceFile"]) {
      world.emu.traffic.faults.set({ script: [{ drop: "after" }], operations: [op] });
      const created = sent("PostDatasetFile");
      const r = await s.up(program);
      expect(r.steps.find((st) => st.name === "two")?.op, op).toMatch(/create|replace|update/);
      expect(s.find("two")?.outputs, op).toMatchObject({ complete: true });
      expect(sent("PostDatasetFile") - created, op).toBe(1);
      await expectConverged(s, program);
      // A new file each round, so the next round uploads again.
      fs.appendFileSync(file, Buffer.from(op));
    }
  });
});
