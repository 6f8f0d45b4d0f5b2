/**
 * Lost answers of creates the API cannot look for afterwards (up1 dataset, up2 source file: no
 * list endpoint), through the real plugin against the emulator. The service makes the object and
 * the answer is lost (or the connection drops before it arrives); the next run must not create a
 * second one: it stops naming what may exist, until adoptId takes the object over or
 * createAfterLostAnswer confirms a new create. Each test runs its plugin in a program folder of
 * its own, where the in-flight marks (.reviewadmin/creates/) live.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { writePatternedFile } from "../support/files";
import { programFolder, useResourceWorld, type ProviderWorld } from "../support/providerWorld";
import { errorOf } from "../support/scenario";

const DB = SEEDED.databases.open;
const { world, store, calls, res } = useResourceWorld("Dataset");
// Each test counts the datasets and source files it made: start from the seeded world.
beforeEach(() => world().emu.reset());

/** The next request of `operation` is carried out (`after`) or not (`before`), and its answer lost. */
const loseAnswerOf = (operation: string, drop: "before" | "after" = "after") =>
  world().emu.traffic.faults.set({ script: [{ drop }], operations: [operation] });
const datasetsNamed = (name: string) => Object.values(store().uploads.state.datasets).filter((d) => d.databaseId === DB && d.name === name);
const sourceFilesIn = (datasetId: number) => Object.values(store().uploads.state.sourceFiles).filter((f) => f.datasetId === datasetId);
const marksIn = (dir: string) => {
  const folder = path.join(dir, ".reviewadmin", "creates");
  return fs.existsSync(folder) ? fs.readdirSync(folder) : [];
};
/** One run of one resource's up in the program folder `cwd`. */
const up = (w: ProviderWorld, cwd: string, kind: string, name: string, inputs: Record<string, unknown>) =>
  w.run(async (run) => (await res(run, name, kind)).up(inputs), { cwd });
/** The confirmation value a stop message names. */
const confirmationIn = (message: string) => /createAfterLostAnswer: "([^"]+)"/.exec(message)?.[1];

describe("Dataset: a lost create answer", () => {
  const mail = { databaseId: DB, name: "Mail 2026" };

  it("a normal create leaves no mark behind", async () => {
    const dir = programFolder("in-flight-");
    await up(world(), dir, "Dataset", "mail", mail);
    expect(datasetsNamed("Mail 2026")).toHaveLength(1);
    expect(marksIn(dir)).toEqual([]);
  });

  it("the next up stops naming the dataset, sends nothing, and adoptId takes the dataset over: one dataset", async () => {
    const dir = programFolder("in-flight-");
    loseAnswerOf("PostDatabaseDataset");
    const lost = await errorOf(up(world(), dir, "Dataset", "mail", mail));
    expect(lost.message).toMatch(
      /^creating Dataset 'Mail 2026' in database 2001: .*The service may have created the dataset before its answer was lost/,
    );
    expect(marksIn(dir)).toHaveLength(1);
    const made = datasetsNamed("Mail 2026");
    expect(made).toHaveLength(1);

    const stop = await errorOf(up(world(), dir, "Dataset", "mail", mail));
    expect(stop.message).toMatch(
      /^creating Dataset 'Mail 2026' in database 2001: an earlier create of dataset 'Mail 2026' in database 2001 was sent at \S+ and its answer was lost, so the service may have made it;.* set adoptId: <its id> to take that dataset over, or, if it is not there, set createAfterLostAnswer: "[^"]+" to create it anew/,
    );
    expect(calls("PostDatabaseDataset")).toBe(1);
    expect(datasetsNamed("Mail 2026")).toHaveLength(1);

    const adopted = await up(world(), dir, "Dataset", "mail", { ...mail, adoptId: made[0]!.id });
    expect(adopted.outs).toMatchObject({ datasetId: made[0]!.id, name: "Mail 2026", adoptId: made[0]!.id });
    expect(adopted.id).toBe(String(made[0]!.id));
    expect(calls("PostDatabaseDataset")).toBe(1);
    expect(datasetsNamed("Mail 2026")).toHaveLength(1);
    expect(marksIn(dir)).toEqual([]);
    // Leaving adoptId out afterwards is no change.
    expect((await up(world(), dir, "Dataset", "mail", mail)).op).toBe("same");
  });

  it("createAfterLostAnswer with the lost create's time creates it anew; any other value still stops", async () => {
    const dir = programFolder("in-flight-");
    loseAnswerOf("PostDatabaseDataset", "before"); // the service never made it
    await errorOf(up(world(), dir, "Dataset", "mail", mail));
    expect(datasetsNamed("Mail 2026")).toHaveLength(0);
    const stop = await errorOf(up(world(), dir, "Dataset", "mail", mail));
    const sentAt = confirmationIn(stop.message);
    expect(sentAt).toBeDefined();

    // A value left from another lost create confirms nothing.
    const stale = await errorOf(up(world(), dir, "Dataset", "mail", { ...mail, createAfterLostAnswer: "2020-01-01T00:00:00.000Z" }));
    expect(stale.message).toMatch(/an earlier create of dataset 'Mail 2026' in database 2001 was sent at/);
    expect(calls("PostDatabaseDataset")).toBe(1);

    const created = await up(world(), dir, "Dataset", "mail", { ...mail, createAfterLostAnswer: sentAt });
    expect(created.op).toBe("create");
    expect(datasetsNamed("Mail 2026")).toHaveLength(1);
    expect(created.outs.datasetId).toBe(datasetsNamed("Mail 2026")[0]!.id);
    expect(marksIn(dir)).toEqual([]);
  });
});

describe("SourceFile: a lost create answer", () => {
  /** A dataset to upload into, and a two-part file in the program folder. */
  async function setUp(dir: string) {
    const ds = await up(world(), dir, "Dataset", "files", { databaseId: DB, name: "Files" });
    const datasetId = ds.outs.datasetId as number;
    const { file, sha1 } = writePatternedFile(dir, "two-parts.bin", 6 * 1024 * 1024);
    return { datasetId, sha1, inputs: { databaseId: DB, datasetId, path: file, partSize: 5 * 1024 * 1024 } };
  }

  it("the next up stops naming the file, sends nothing, and adoptId uploads into the lost source file: one source file", async () => {
    const dir = programFolder("in-flight-");
    const { datasetId, sha1, inputs } = await setUp(dir);
    loseAnswerOf("PostDatasetFile");
    const lost = await errorOf(up(world(), dir, "SourceFile", "two", inputs));
    expect(lost.message).toMatch(
      /The service may have created a source file before its answer was lost; if so it stays empty \(UPLOADING\)/,
    );
    const made = sourceFilesIn(datasetId);
    expect(made).toHaveLength(1);

    const stop = await errorOf(up(world(), dir, "SourceFile", "two", inputs));
    expect(stop.message).toMatch(
      new RegExp(
        `^creating SourceFile 'two-parts.bin' in dataset ${datasetId}: an earlier create of source file 'two-parts.bin' in dataset ${datasetId} of database 2001 was sent at \\S+ and its answer was lost.* set adoptId: <its id> to upload into that source file, or, if it is not there, set createAfterLostAnswer: "[^"]+"`,
      ),
    );
    expect(calls("PostDatasetFile")).toBe(1);
    expect(sourceFilesIn(datasetId)).toHaveLength(1);

    const adopted = await up(world(), dir, "SourceFile", "two", { ...inputs, adoptId: made[0]!.id });
    expect(adopted.outs).toMatchObject({ sourceFileId: made[0]!.id, complete: true, sha1, partCount: 2 });
    expect(calls("PostDatasetFile")).toBe(1);
    expect(sourceFilesIn(datasetId)).toHaveLength(1);
    expect(sourceFilesIn(datasetId)[0]).toMatchObject({ state: expect.stringMatching(/PROCESSING|PROCESSED/), sha1 });
    expect(marksIn(dir)).toEqual([]);
  });

  it("createAfterLostAnswer with the lost create's time uploads into a new source file; a normal upload leaves no mark", async () => {
    const dir = programFolder("in-flight-");
    const { datasetId, inputs } = await setUp(dir);
    loseAnswerOf("PostDatasetFile", "before");
    await errorOf(up(world(), dir, "SourceFile", "two", inputs));
    expect(sourceFilesIn(datasetId)).toHaveLength(0);
    const sentAt = confirmationIn((await errorOf(up(world(), dir, "SourceFile", "two", inputs))).message);
    expect(calls("PostDatasetFile")).toBe(1);

    const created = await up(world(), dir, "SourceFile", "two", { ...inputs, createAfterLostAnswer: sentAt });
    expect(created.outs).toMatchObject({ complete: true });
    expect(sourceFilesIn(datasetId)).toHaveLength(1);
    expect(marksIn(dir)).toEqual([]);
  });
});

/**
 * PULUMI_SKIP_CHECKPOINTS: the engine writes the state only when the run ends, so a run killed after
 * a create was answered loses the object's id. The plugin inherits the CLI's environment; a
 * resource of a new name stands for the same resource after the state was lost.
 */
describe("with PULUMI_SKIP_CHECKPOINTS, a create whose run never wrote its state", () => {
  const skipping = async <T>(fn: () => Promise<T>): Promise<T> => {
    process.env.PULUMI_SKIP_CHECKPOINTS = "true";
    try {
      return await fn();
    } finally {
      delete process.env.PULUMI_SKIP_CHECKPOINTS;
    }
  };
  const mail = { databaseId: DB, name: "Mail 2026" };

  it("Dataset: the next create takes over the dataset the killed run made, sends nothing, and a later diff forgets the mark", async () => {
    const dir = programFolder("in-flight-");
    await skipping(async () => {
      const first = await up(world(), dir, "Dataset", "mail", mail);
      expect(marksIn(dir)).toHaveLength(1); // kept: this run's state may never be written
      const { again, said } = await world().run(
        async (run) => ({
          again: await (await res(run, "mail-state-lost", "Dataset")).up(mail),
          said: run.plugin.logs.map((l) => l.line).join("\n"),
        }),
        { cwd: dir },
      );
      expect(again.outs).toMatchObject({ datasetId: first.outs.datasetId });
      expect(said).toMatch(
        new RegExp(`took over dataset ${first.outs.datasetId}, which an earlier run created but stopped before the engine wrote its state`),
      );
      expect(calls("PostDatabaseDataset")).toBe(1);
      expect(datasetsNamed("Mail 2026")).toHaveLength(1);
      // The next run diffs the resource its state holds: the mark has done its job.
      expect((await up(world(), dir, "Dataset", "mail-state-lost", mail)).op).toBe("same");
      expect(marksIn(dir)).toEqual([]);
    });
    // Without the setting, an answered create leaves no mark (the state is written after each step).
    const dir2 = programFolder("in-flight-");
    await up(world(), dir2, "Dataset", "other", { databaseId: DB, name: "Other" });
    expect(marksIn(dir2)).toEqual([]);
  });

  it("SourceFile: the next create takes over the uploaded file (no part sent again), one source file", async () => {
    const dir = programFolder("in-flight-");
    const ds = await up(world(), dir, "Dataset", "files", { databaseId: DB, name: "Files" });
    const datasetId = ds.outs.datasetId as number;
    const { file, sha1 } = writePatternedFile(dir, "two-parts.bin", 6 * 1024 * 1024);
    const inputs = { databaseId: DB, datasetId, path: file, partSize: 5 * 1024 * 1024 };
    await skipping(async () => {
      const first = await up(world(), dir, "SourceFile", "two", inputs);
      expect(marksIn(dir)).toHaveLength(1);
      const parts = calls("PostSourceFilePart");
      const again = await up(world(), dir, "SourceFile", "two-state-lost", inputs);
      expect(again.outs).toMatchObject({ sourceFileId: first.outs.sourceFileId, complete: true, sha1, partCount: 2 });
      expect(calls("PostDatasetFile")).toBe(1);
      expect(calls("PostSourceFilePart")).toBe(parts);
      expect(sourceFilesIn(datasetId)).toHaveLength(1);
      expect((await up(world(), dir, "SourceFile", "two-state-lost", inputs)).op).toBe("same");
      expect(marksIn(dir)).toEqual([]);
    });
  });
});
