/**
 * Dataset and SourceFile through the real plugin against the emulator: settings passed through
 * and checked at plan time, the dataset cap's 422, single- and multi-part uploads with a failing
 * PUT and progress logs, a create that stops half-way kept as a partial resource and resumed by
 * the next up without re-sending what arrived, content changes that replace, a moved file that
 * does not, direct links, plan-time refusals and notes on delete. The two in a program under the
 * real engine (the dataset id flowing into the source file, secrets in state): test/engine/upload.test.ts.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { PluginError } from "../../harness/pluginDriver";
import { UNKNOWN } from "../../harness/wire";
import { useResourceWorld } from "../support/providerWorld";
import { SCENARIO, step } from "../support/scenario";
import { writePatternedFile } from "../support/files";

const DB = SEEDED.databases.open;
const MiB = 1024 * 1024;
const PART = 5 * MiB;

const { world, store, calls, record, res } = useResourceWorld("SourceFile");
let dir: string;
/** A dataset made directly in the emulator for the SourceFile tests. */
let datasetId: number;

const uploads = () => store().uploads;
const sha1 = (b: Buffer) => createHash("sha1").update(b).digest("hex");

const makeFile = (name: string, size: number, seed = 1) => writePatternedFile(dir, name, size, seed);

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "upload-resources-"));
});
// After useResourceWorld's reset of the world: each test's own upload settings and dataset.
beforeEach(() => {
  store().configureUploads({ processingDelayMs: 20 });
  datasetId = uploads().createDataset(DB, { name: "Files" }).id;
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("Dataset", () => {
  const inputs = {
    databaseId: DB,
    name: "Custodian A mail",
    description: "PSTs of custodian A",
    deduplication: "NONE",
    timezone: "Europe/Paris",
    deNIST: true,
    ocrLanguage: "deu",
    emailHyperlinkedImages: false,
    partialProjectIds: [SEEDED.projects.partial],
    defaultCustodian: "Custodian A",
  };

  it("a dataset: created with its settings, refreshed, the same inputs no change, any setting change a replacement", SCENARIO, async () => {
    await step("creates a dataset with the spec's fields and passes the other settings through", async () => {
      const r = await world().run(async (run) => (await res(run, "mail", "Dataset")).up(inputs));
      expect(r.op).toBe("create");
      expect(r.id).toBe(String(r.outs.datasetId));
      expect(r.outs).toMatchObject({ ...inputs, schemaVersion: 1 });
      const stored = uploads().dataset(DB, r.outs.datasetId);
      expect(stored.request).toEqual({
        name: "Custodian A mail",
        description: "PSTs of custodian A",
        deduplication: "NONE",
        timezone: "Europe/Paris",
        deNIST: true,
        ocrLanguage: "deu",
        emailHyperlinkedImages: false,
        partialProjectIds: [3002],
        defaultCustodian: "Custodian A",
      });
    });

    await step(
      "refresh keeps the state; the same inputs are no change; any setting change replaces; delete leaves it with a note",
      async () => {
        const before = world().states.get("Dataset/mail")!;
        const oldId = before.outputs.datasetId;
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "mail", "Dataset");
          expect((await d.refresh())?.outputs).toEqual(before.outputs);
          expect((await d.preview(inputs)).op).toBe("same");
          expect(sent.all()).toEqual([]);
          const p = await d.preview({ ...inputs, timezone: "America/New_York" });
          expect(p.op).toBe("replace");
          expect(p.diff?.replaces).toEqual(["timezone"]);
          // A setting dropped from the program is a change too.
          const { deNIST: _dropped, ...withoutDeNIST } = inputs;
          expect((await d.preview(withoutDeNIST)).diff?.replaces).toEqual(["deNIST"]);
          const r = await d.up({ ...inputs, timezone: "America/New_York" });
          expect(r.op).toBe("replace");
          expect(r.outs.datasetId).not.toBe(oldId);
          await run.plugin.waitForLog(new RegExp(`dataset ${oldId}\\): the service has no endpoint to delete a dataset`));
        });
        expect(uploads().dataset(DB, oldId).name).toBe("Custodian A mail");
      },
    );
  });

  it("refuses bad settings at check, naming the field", async () => {
    await world().run(async (run) => {
      const d = await res(run, "bad", "Dataset");
      const check = (extra: object) => run.plugin.check(d.urn, {}, { __provider: d.provider, databaseId: DB, name: "x", ...extra });
      const reasons = async (extra: object) => (await check(extra)).failures.map((f) => `${f.property}: ${f.reason}`).join("\n");
      expect(await reasons({ timezone: "Mars/Olympus" })).toMatch(/timezone: 'Mars\/Olympus' is not an IANA time zone name/);
      expect(await reasons({ timezone: "europe/paris" })).toMatch(
        /timezone: must be spelled as in the IANA database \(did you mean Europe\/Paris\?\)/,
      );
      expect(await reasons({ timezone: "+05:00" })).toMatch(/timezone: must be an IANA time zone name, not a UTC offset/);
      expect(await reasons({ ocrLanguage: "german" })).toMatch(/ocrLanguage: must be 'auto' or an ISO 639-3 code/);
      expect(await reasons({ deNIST: "yes" })).toMatch(/deNIST/);
      expect(await reasons({ name: "" })).toMatch(/name: must not be empty/);
      expect(await reasons({ colour: "blue" })).toMatch(/colour/);
      expect((await check({ timezone: "America/Argentina/Buenos_Aires", ocrLanguage: "auto" })).failures).toEqual([]);
      expect((await check({ timezone: UNKNOWN })).failures).toEqual([]);
    });
  });

  it("the dataset cap's 422 reaches the user with the limit's name", async () => {
    const count = Object.values(uploads().state.datasets).filter((d) => d.databaseId === DB).length;
    uploads().setDatasetLimit(DB, count);
    try {
      await world().run(async (run) => {
        const d = await res(run, "one-too-many", "Dataset");
        await expect(d.up({ databaseId: DB, name: "One too many" })).rejects.toThrow(
          new RegExp(
            `creating Dataset 'One too many' in database ${DB}: the service answered 422 dataset limit of ${count} datasets per database reached.*limits are raised .* on request`,
          ),
        );
        expect(d.state).toBeUndefined();
      });
    } finally {
      uploads().setDatasetLimit(DB, 25 + count);
    }
  });
});

describe("SourceFile", () => {
  it(
    "a small file: uploaded in one part, refreshed, the same again no change; moved, an update that sends nothing; new content, a replacement",
    SCENARIO,
    async () => {
      await step("uploads a small file in one part; refresh keeps it; the same file again is no change", async () => {
        const { file, bytes, sha1: expected } = makeFile("memo.txt", 50_000);
        const inputs = { databaseId: DB, datasetId, path: file, custodian: "Ada", childCustodians: { "inbox/": "Grace" } };
        const r = await world().run(async (run) => (await res(run, "memo")).up(inputs));
        expect(r.op).toBe("create");
        expect(r.outs).toMatchObject({
          filename: "memo.txt",
          state: "PROCESSING",
          size: bytes.length,
          sha1: expected,
          partCount: 1,
          complete: true,
        });
        expect(r.id).toBe(String(r.outs.sourceFileId));
        expect(r.inputs).toMatchObject({ sha1: expected, size: bytes.length, filename: "memo.txt" });
        const f = uploads().sourceFile(DB, r.outs.sourceFileId);
        expect(f.request).toMatchObject({ filename: "memo.txt", custodian: "Ada", childCustodians: { "inbox/": "Grace" } });
        expect(fs.readFileSync(f.path!).equals(bytes)).toBe(true);

        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "memo");
          expect((await d.refresh())?.outputs).toEqual(r.outs);
          expect((await d.up(inputs)).op).toBe("same");
        });
        expect(sent.writes()).toEqual([]);
        expect(calls("PostDatasetFile")).toBe(1);
      });

      await step("a moved file with the same content is an update that sends nothing; new content replaces", async () => {
        const moved = path.join(dir, "memo-moved.txt");
        fs.copyFileSync(path.join(dir, "memo.txt"), moved);
        const old = world().states.get("SourceFile/memo")!;
        const inputs = {
          databaseId: DB,
          datasetId,
          path: moved,
          filename: "memo.txt",
          custodian: "Ada",
          childCustodians: { "inbox/": "Grace" },
        };
        const sent = record();
        await world().run(async (run) => {
          const d = await res(run, "memo");
          const r = await d.up(inputs);
          expect(r.op).toBe("update");
          expect(r.outs).toMatchObject({ sourceFileId: old.outputs.sourceFileId, path: moved });
        });
        expect(sent.all()).toEqual([]);

        fs.appendFileSync(moved, "one more line\n");
        await world().run(async (run) => {
          const d = await res(run, "memo");
          const p = await d.preview(inputs);
          expect(p.op).toBe("replace");
          expect(p.diff?.replaces).toEqual(["sha1"]);
          const r = await d.up(inputs);
          expect(r.op).toBe("replace");
          expect(r.outs.sourceFileId).not.toBe(old.outputs.sourceFileId);
          expect(r.outs.sha1).toBe(sha1(fs.readFileSync(moved)));
          await run.plugin.waitForLog(
            new RegExp(`source file ${old.outputs.sourceFileId}\\): the service has no endpoint to delete a source file`),
          );
        });
      });
    },
  );

  it("a large file: uploaded in 3 parts through a failing PUT, then deleted, leaving it on the service", SCENARIO, async () => {
    await step("uploads 3 parts with several in flight, a failing PUT retried, and logs progress", async () => {
      const { file, bytes, sha1: expected } = makeFile("archive.zip", 3 * PART, 2);
      world().emu.traffic.faults.set({ script: [{ status: 500 }], operations: ["PutSourceFilePart"] });
      await world().run(async (run) => {
        const r = await (await res(run, "archive")).up({ databaseId: DB, datasetId, path: file, partSize: PART, concurrency: 3 });
        expect(r.outs).toMatchObject({ state: "PROCESSING", size: bytes.length, sha1: expected, partCount: 3, complete: true });
        expect(fs.readFileSync(uploads().sourceFile(DB, r.outs.sourceFileId).path!).equals(bytes)).toBe(true);
        await run.plugin.waitForLog(
          /SourceFile 'archive.zip' in dataset \d+: 100% uploaded \(15,728,640 of 15,728,640 bytes, 3 of 3 parts\)/,
        );
        expect(run.plugin.logs.filter((l) => /% uploaded/.test(l.line)).length).toBe(3);
      });
      expect(calls("PutSourceFilePart")).toBe(4);
      expect(
        world()
          .emu.traffic.log.list("PutSourceFilePart")
          .filter((e) => e.status === 500),
      ).toHaveLength(1);
    });

    await step("delete leaves the file on the service, with a note", async () => {
      const id = world().states.get("SourceFile/archive")!.outputs.sourceFileId;
      await world().run(async (run) => {
        const d = await res(run, "archive");
        await d.destroy();
        expect(d.state).toBeUndefined();
        await run.plugin.waitForLog(
          new RegExp(
            `SourceFile 'archive.zip' in dataset ${datasetId} \\(source file ${id}\\): the service has no endpoint to delete a source file`,
          ),
        );
      });
      expect(uploads().sourceFile(DB, id).state).not.toBe("UPLOADING");
    });
  });

  it("a create that stops half-way is kept as a partial resource, and the next up resumes it", SCENARIO, async () => {
    const { file, bytes, sha1: expected } = makeFile("mailbox.pst", 3 * PART, 3);
    const inputs = { databaseId: DB, datasetId, path: file, partSize: PART, concurrency: 1, passwords: ["hunter2"] };
    let sourceFileId = 0;

    await step("a create that stops half-way is kept as a partial resource", async () => {
      // Part 1 goes through; every try of part 2 is refused (429 with Retry-After 0, so the retries are quick).
      world().emu.traffic.faults.set({
        script: [{}, ...Array.from({ length: 40 }, () => ({ status: 429 as const, retryAfter: 0 }))],
        operations: ["PutSourceFilePart"],
      });
      await world().run(async (run) => {
        const d = await res(run, "mailbox");
        const err = await d.up(inputs).catch((e) => e);
        expect(err).toBeInstanceOf(PluginError);
        expect(err.message).toMatch(
          /creating SourceFile 'mailbox.pst' in dataset \d+: the upload stopped with 1 of 3 parts on the service \(source file (\d+)\): the service answered 429.*the next update resumes source file \1 and sends only the missing parts/,
        );
        expect(err.initFailure).toBeDefined();
        sourceFileId = Number(err.initFailure.id);
        expect(d.state?.outputs).toMatchObject({
          sourceFileId,
          complete: false,
          state: "UPLOADING",
          partsDone: 1,
          partCount: 3,
          sha1: expected,
        });
        // The partial state can still be deleted later: it carries the provider.
        expect(d.state?.outputs.__provider).toBe(d.provider);
      });
      expect(
        uploads()
          .listParts(DB, sourceFileId)
          .map((p) => p.partNumber),
      ).toEqual([1]);
      expect(calls("PostSourceFile")).toBe(0);
    });

    await step("the next up resumes it, sending only the missing parts", async () => {
      world().emu.traffic.faults.clear();
      const sent = record();
      await world().run(async (run) => {
        const d = await res(run, "mailbox");
        const p = await d.preview(inputs);
        expect(p.op).toBe("update");
        const r = await d.up(inputs);
        expect(r.op).toBe("update");
        expect(r.id).toBe(String(sourceFileId));
        expect(r.outs).toMatchObject({ sourceFileId, complete: true, state: "PROCESSING", sha1: expected, partCount: 3 });
        expect(r.outs.partsDone).toBeUndefined();
      });
      expect(sent.all()).toEqual([
        "GetSourceFileParts 200",
        "PostSourceFile 200",
        "PostSourceFilePart 200",
        "PostSourceFilePart 200",
        "PutSourceFilePart 200",
        "PutSourceFilePart 200",
      ]); // parts 2 and 3 (a URL and a PUT each), then complete; no new source file
      expect(fs.readFileSync(uploads().sourceFile(DB, sourceFileId).path!).equals(bytes)).toBe(true);
      expect(uploads().sourceFile(DB, sourceFileId).request.passwords).toEqual(["hunter2"]);
    });
  });

  it("hands a direct link to the service, which fetches it from a loopback server with Range support", async () => {
    const bytes = makeFile("export.zip", 2 * MiB + 3, 4).bytes;
    const server = http.createServer((req, res) => {
      const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
      if (!m) return res.writeHead(200).end(bytes);
      const start = Number(m[1]);
      const end = Math.min(bytes.length - 1, Number(m[2]));
      res.writeHead(206, { "content-range": `bytes ${start}-${end}/${bytes.length}` }).end(bytes.subarray(start, end + 1));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const link = `http://127.0.0.1:${(server.address() as AddressInfo).port}/exports/export.zip?token=s3cr3t`;
      const r = await world().run(async (run) => (await res(run, "linked")).up({ databaseId: DB, datasetId, directLink: link }));
      expect(r.outs).toMatchObject({
        filename: "export.zip",
        state: "UPLOADING",
        size: null,
        sha1: null,
        partCount: 0,
        complete: true,
        directLink: link,
      });
      expect(calls("PutSourceFilePart")).toBe(0);
      await uploads().settled(r.outs.sourceFileId);
      expect(uploads().sourceFile(DB, r.outs.sourceFileId)).toMatchObject({ size: bytes.length, sha1: sha1(bytes) });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("refuses at check: a missing file, both or neither source, a plain-http link, too many parts, over 5TB", async () => {
    const big = path.join(dir, "sparse.bin");
    fs.closeSync(fs.openSync(big, "w"));
    const good = makeFile("checked.zip", 3 * PART, 6).file;
    const sent = record();
    await world().run(async (run) => {
      const d = await res(run, "bad");
      const check = (extra: object) => run.plugin.check(d.urn, {}, { __provider: d.provider, databaseId: DB, datasetId, ...extra });
      const reasons = async (extra: object) => (await check(extra)).failures.map((f) => `${f.property}: ${f.reason}`).join("\n");
      expect(await reasons({ path: path.join(dir, "nope.pst") })).toMatch(/path: no file at .*nope\.pst/);
      expect(await reasons({ path: dir })).toMatch(/path: .* is not a regular file/);
      expect(await reasons({ path: good, directLink: "https://files.example.com/a.zip" })).toMatch(
        /path: give exactly one of path .* and directLink/,
      );
      expect(await reasons({})).toMatch(/give exactly one of path/);
      expect(await reasons({ directLink: "http://files.example.com/a.zip" })).toMatch(
        /directLink: uses plain http to files.example.com; it must use https/,
      );
      expect(await reasons({ directLink: "https://files.example.com/a.zip", partSize: PART })).toMatch(
        /partSize: applies to uploads from a path only/,
      );
      expect(await reasons({ directLink: "https://files.example.com/" })).toMatch(/filename: is required/);
      // Sparse files: the size is checked before anything is read.
      fs.truncateSync(big, PART * 10_000 + 1);
      expect(await reasons({ path: big, partSize: PART })).toMatch(
        /partSize: 5,242,880 bytes per part cuts this 52,428,800,001-byte file into 10,001 parts; at most 10,000/,
      );
      expect(await reasons({ path: big, partSize: MiB })).toMatch(/partSize: must be at least 5MB/);
      fs.truncateSync(big, 5_000_000_000_001);
      expect(await reasons({ path: big })).toMatch(/path: the file is 5,000,000,000,001 bytes; a file may be at most 5TB/);
      // Unknowns pass (checked again at up).
      expect((await check({ path: UNKNOWN })).failures).toEqual([]);
      // A good file: the check computes its SHA1 and size.
      const ok = await check({ path: good, partSize: PART });
      expect(ok.failures).toEqual([]);
      expect(ok.inputs).toMatchObject({ filename: "checked.zip", size: 3 * PART, sha1: sha1(fs.readFileSync(good)) });
      // The next check reuses the SHA1 while the file's stamp (size, times, inode) is unchanged...
      const marked = { ...ok.inputs, sha1: "f".repeat(40) };
      const again = await run.plugin.check(d.urn, marked, {
        __provider: d.provider,
        databaseId: DB,
        datasetId,
        path: good,
        partSize: PART,
      });
      expect(again.inputs.sha1).toBe("f".repeat(40));
      // ...and hashes again once the file was touched (its change time moved).
      const t = new Date();
      fs.utimesSync(good, t, t);
      const touched = await run.plugin.check(d.urn, marked, {
        __provider: d.provider,
        databaseId: DB,
        datasetId,
        path: good,
        partSize: PART,
      });
      expect(touched.inputs.sha1).toBe(ok.inputs.sha1);
    });
    fs.rmSync(big);
    expect(sent.all()).toEqual([]);
  });
});
