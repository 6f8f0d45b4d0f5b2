/**
 * The fault suite under the engine, for the creates that cannot be sent again: the service does
 * the write and the answer is lost (the emulator drops the connection after the handler ran). The
 * run either converges by itself (completion is asked again) or fails with a message saying what
 * may exist, kept by the engine as partial state; the next `up` then converges with nothing
 * duplicated, nothing sent twice that should not be (a dataset, a source file), and nothing stuck.
 * Deterministic: each case loses exactly one answer (the emulator's fault script). The routes the
 * provider sends again by itself: test/reliability/lostAnswers.test.ts.
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
  // The routes the provider sends again by itself (E19, E22, E20 and E13, E15, E26 and E24, E5):
  // test/reliability/lostAnswers.test.ts, each run in process; what follows needs the engine's
  // partial state of a failed create.
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
