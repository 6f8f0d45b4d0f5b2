/**
 * SourceFile uploads that lose their run or their answers: a plugin process killed half-way
 * through resumes the same source file on the next up (resume point on disk), and a completion
 * whose answer is lost, once or twice, ends complete instead of stuck.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { startPlugin } from "../../harness/pluginDriver";
import { ResourceDriver } from "../../harness/resourceDriver";
import { programFolder, providerText, startProviderWorld, tokenOf, type ProviderWorld } from "../support/providerWorld";
import { writePatternedFile } from "../support/files";

const DB = SEEDED.databases.open;
const PART = 5 * 1024 * 1024;

let world: ProviderWorld;
let dir: string;
let datasetId: number;

const calls = (op: string, status?: number): number =>
  world.emu.traffic.log.list(op).filter((e) => status === undefined || e.status === status).length;
// The plugin runs in a program folder of this file's own, so the resume points it writes
// (.reviewadmin/uploads/ under its working folder) are this file's alone.
const program = programFolder("upload-resume-program-");
const resumeFolder = path.join(program, ".reviewadmin", "uploads");

const makeFile = (name: string, size: number, seed: number) => writePatternedFile(dir, name, size, seed);

/** A plugin configured like a run of the world, and a SourceFile driven through it. */
async function sourceFileRun(name: string) {
  const plugin = await startPlugin({
    cwd: program,
    config: { "reviewadmin:apiKey": world.key, "reviewadmin:baseUrl": world.emu.url, "reviewadmin:requestsPerSecond": "1000" },
    secretConfigKeys: ["reviewadmin:apiKey"],
  });
  return { plugin, driver: new ResourceDriver(plugin, tokenOf("SourceFile"), name, await providerText("SourceFile")) };
}

beforeAll(async () => {
  world = await startProviderWorld();
  world.emu.store.configureUploads({ processingDelayMs: 20 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "upload-resume-"));
  const r = await world.run(async (run) => (await run.resource("Dataset", "resume")).up({ databaseId: DB, name: "Resume" }));
  datasetId = r.outs.datasetId;
});
afterAll(async () => {
  await world?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  world.emu.traffic.faults.clear();
  world.emu.traffic.log.reset();
});

describe("SourceFile after a lost run or a lost answer", () => {
  it("a plugin killed half-way: the next up resumes the same source file and sends only the missing parts", async () => {
    const { file, sha1 } = makeFile("killed.pst", 4 * PART, 7);
    const inputs = { databaseId: DB, datasetId, path: file, partSize: PART, concurrency: 1 };
    // Slow parts, so the run can be killed between two of them.
    world.emu.traffic.faults.set({ latencyMs: 250, operations: ["PutSourceFilePart"] });

    const first = await sourceFileRun("killed");
    const upload = first.driver.up(inputs).catch((e: unknown) => e);
    while (calls("PutSourceFilePart", 200) < 2) await new Promise((r) => setTimeout(r, 20));
    await first.plugin.close(); // kill -9 of the run: no partial create reaches the engine
    await upload;
    expect(first.driver.state).toBeUndefined();
    expect(calls("PostDatasetFile")).toBe(1);
    const points = fs.readdirSync(resumeFolder);
    expect(points.length).toBe(1);
    const { sourceFileId } = JSON.parse(fs.readFileSync(path.join(resumeFolder, points[0]!), "utf8"));
    // Let a part still in flight when the run died land (or not) before counting what the service holds.
    await world.emu.traffic.idle();
    const held = world.emu.store.uploads.listParts(DB, sourceFileId).length;
    expect(held).toBeGreaterThanOrEqual(2);
    expect(held).toBeLessThan(4);
    const putsBefore = calls("PutSourceFilePart");

    world.emu.traffic.faults.clear();
    const second = await sourceFileRun("killed");
    try {
      const r = await second.driver.up(inputs);
      expect(r.op).toBe("create");
      expect(r.outs).toMatchObject({ complete: true, sha1, partCount: 4 });
      expect(r.outs.sourceFileId).toBe(sourceFileId); // the same source file, not a new one
      expect(calls("PostDatasetFile")).toBe(1);
      expect(calls("PutSourceFilePart") - putsBefore).toBe(4 - held); // only the missing parts
      expect(world.emu.store.uploads.sourceFile(DB, sourceFileId)).toMatchObject({ sha1 });
      expect(second.plugin.logs.map((l) => l.line).join("\n")).toMatch(/resumed source file \d+, left unfinished by an earlier run/);
      expect(fs.existsSync(resumeFolder) ? fs.readdirSync(resumeFolder) : []).toEqual([]);
    } finally {
      await second.plugin.close();
    }
  });

  it("a completion whose answer is lost is asked again, and the file ends complete", async () => {
    const { file, sha1 } = makeFile("lost-once.pst", 2 * PART, 8);
    world.emu.traffic.faults.set({ script: [{ drop: "after" }], operations: ["PostSourceFile"] });
    const run = await sourceFileRun("lost-once");
    try {
      const r = await run.driver.up({ databaseId: DB, datasetId, path: file, partSize: PART });
      expect(r.outs).toMatchObject({ complete: true, sha1 });
      expect(calls("PostSourceFile")).toBe(2);
      expect(world.emu.store.uploads.sourceFile(DB, r.outs.sourceFileId).state).not.toBe("UPLOADING");
    } finally {
      await run.plugin.close();
    }
  });

  it("a completion whose answer and repeat are both lost leaves a partial resource; the next up finds the file complete instead of failing for good", async () => {
    const { file, sha1 } = makeFile("lost-twice.pst", 2 * PART, 9);
    const inputs = { databaseId: DB, datasetId, path: file, partSize: PART };
    // The completion is done but its answer lost; the repeat never reaches the service.
    world.emu.traffic.faults.set({ script: [{ drop: "after" }, { drop: "before" }], operations: ["PostSourceFile"] });
    const run = await sourceFileRun("lost-twice");
    try {
      const err = await run.driver.up(inputs).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((err as Error).message).toMatch(/the next update resumes source file/);
      expect(run.driver.state?.outputs).toMatchObject({ complete: false });
      world.emu.traffic.faults.clear();
      const puts = calls("PutSourceFilePart");
      const r = await run.driver.up(inputs);
      expect(r.op).toBe("update");
      expect(r.outs).toMatchObject({ complete: true, sha1 });
      expect(calls("PutSourceFilePart")).toBe(puts); // nothing sent again
    } finally {
      await run.plugin.close();
    }
  });
});
