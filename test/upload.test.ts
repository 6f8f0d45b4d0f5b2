/**
 * uploadFile against the emulator: one part, several parts in flight with a failing PUT retried
 * through a fresh URL, an interrupted upload resumed without re-sending what arrived, a part
 * corrupted in transit caught by the SHA1 at completion (and mended by resuming), a direct link
 * served by a loopback server with Range support, and the rules refused before anything is sent.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEEDED, startEmulator, type RunningEmulator } from "../emulator";
import { ApiError, ParameterError, ReviewAdminClient, type ClientOptions } from "../provider/client";
import { UploadError, uploadFile, type UploadProgress } from "../provider/upload/engine";
import { UPLOAD_RULES, planParts, recommendedPartSize } from "../provider/upload/plan";
import { writePatternedFile } from "./support/files";

const DB = SEEDED.databases.open;
const MiB = 1024 * 1024;
const PART = 5 * MiB;

let emu: RunningEmulator;
let dir: string;
let datasetId: number;

/** A client for the emulator; `maxAttempts: 1` makes putPart give up at once, so the engine's fresh-URL retry shows. */
function clientFor(opts: Partial<ClientOptions> = {}): ReviewAdminClient {
  return new ReviewAdminClient({ baseUrl: emu.url, apiKey: emu.keys.orgAdmin, requestsPerSecond: 1000, retryBaseMs: 1, ...opts });
}

/** Records which part each PUT was for, how many were in flight at once, and lets a test corrupt one part. */
class WatchingClient extends ReviewAdminClient {
  readonly partOfUrl = new Map<string, number>();
  readonly completed: number[] = [];
  readonly failed: number[] = [];
  inFlight = 0;
  maxInFlight = 0;
  corruptPart?: number;
  /** A slow link for this part: its PUT starts only once every other part has arrived. */
  holdPart?: number;
  partCount = 0;

  override async call(op: any, params: any, body?: any, opts?: any): Promise<any> {
    const data = await super.call(op, params, body, opts);
    if (op === "PostSourceFilePart") this.partOfUrl.set(data.url, data.partNumber);
    return data;
  }

  override async putPart(url: string, body: any, opts?: any): Promise<{ etag: string }> {
    const part = this.partOfUrl.get(url)!;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (part === this.holdPart) {
        while (this.completed.length < this.partCount - 1) await new Promise((r) => setTimeout(r, 5));
      }
      let sent = body;
      if (part === this.corruptPart) {
        sent = Buffer.from(body);
        sent[0] ^= 0xff; // one flipped byte, as a faulty link might do
      }
      const res = await super.putPart(url, sent, opts);
      this.completed.push(part);
      return res;
    } catch (err) {
      this.failed.push(part);
      throw err;
    } finally {
      this.inFlight--;
    }
  }
}

function watching(opts: Partial<ClientOptions> = {}): WatchingClient {
  return new WatchingClient({ baseUrl: emu.url, apiKey: emu.keys.orgAdmin, requestsPerSecond: 1000, retryBaseMs: 1, ...opts });
}

const makeFile = (name: string, size: number, seed = 1) => writePatternedFile(dir, name, size, seed);

const sha1 = (b: Buffer) => createHash("sha1").update(b).digest("hex");
const count = (op: string) => emu.traffic.log.list(op).length;
const counts = () =>
  Object.fromEntries(
    ["PostDatasetFile", "PostSourceFilePart", "PutSourceFilePart", "GetSourceFileParts", "PostSourceFile"].map((op) => [op, count(op)]),
  );
const stored = (id: number) => emu.store.uploads.sourceFile(DB, id);

beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 0 });
  emu.store.configureUploads({ processingDelayMs: 20 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "upload-test-"));
  datasetId = (await clientFor().call("PostDatabaseDataset", { databaseId: DB }, { name: "Engine tests", deduplication: "NONE" })).id;
});
afterAll(async () => {
  await emu?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  emu.traffic.log.reset();
  emu.traffic.faults.clear();
});

describe("the upload rules", () => {
  it("recommends the larger of 50,000,000 bytes and 1 + size/10,000, and plans parts by it", () => {
    expect(recommendedPartSize(1_000)).toBe(50_000_000);
    expect(recommendedPartSize(1_000_000_000)).toBe(50_000_000);
    expect(recommendedPartSize(5_000_000_000_000)).toBe(500_000_001);
    expect(planParts(1_073_741_824)).toEqual({ size: 1_073_741_824, partSize: 50_000_000, partCount: 22 });
    expect(planParts(5_000_000_000_000).partCount).toBeLessThanOrEqual(10_000);
    expect(planParts(0)).toEqual({ size: 0, partSize: 50_000_000, partCount: 1 });
    // A part below 5MB is fine when it is the only (hence last) part.
    expect(planParts(1000, 100_000).partCount).toBe(1);
  });

  it("refuses parts under 5MB, over 5GB, over 10,000 parts and files over 5TB, naming the input", () => {
    expect(() => planParts(20 * MiB, MiB)).toThrow(/partSize.*at least 5MB/);
    expect(() => planParts(6e9, 5_500_000_000)).toThrow(/partSize.*at most 5GB/);
    const e = (() => {
      try {
        planParts(PART * 10_000 + 1, PART);
      } catch (err) {
        return err as ParameterError;
      }
    })()!;
    expect(e).toBeInstanceOf(ParameterError);
    expect(e.parameter).toBe("partSize");
    expect(e.rule).toMatch(/10,001 parts; at most 10,000/);
    expect(() => planParts(UPLOAD_RULES.maxFileSize + 1)).toThrow(/path.*at most 5TB/);
  });
});

describe("uploadFile", () => {
  it("sends a small file as one part, with its SHA1", async () => {
    const { file, sha1: expected, bytes } = makeFile("small.bin", 100_000);
    const progress: UploadProgress[] = [];
    const r = await uploadFile({
      client: clientFor(),
      databaseId: DB,
      datasetId,
      path: file,
      custodian: "Ada",
      onProgress: (p) => progress.push(p),
    });
    expect(r).toMatchObject({ state: "PROCESSING", size: bytes.length, sha1: expected, partCount: 1, partsSent: 1, partsReused: 0 });
    expect(counts()).toEqual({ PostDatasetFile: 1, PostSourceFilePart: 1, PutSourceFilePart: 1, GetSourceFileParts: 0, PostSourceFile: 1 });
    const f = stored(r.sourceFileId);
    expect(f).toMatchObject({ filename: "small.bin", sha1: expected, size: bytes.length });
    expect(f.request.custodian).toBe("Ada");
    expect(fs.readFileSync(f.path!).equals(bytes)).toBe(true);
    expect(progress.at(-1)).toEqual({ bytesSent: bytes.length, totalBytes: bytes.length, partsDone: 1, partCount: 1 });
  });

  it("sends 3 parts out of order, several in flight, and retries a failed PUT through a fresh URL", async () => {
    const size = 2 * PART + 123_457;
    const { file, sha1: expected, bytes } = makeFile("three.bin", size, 2);
    // The first part PUT to arrive fails; the client gives up at once, so the engine asks for a new URL.
    emu.traffic.faults.set({ script: [{ status: 500 }], operations: ["PutSourceFilePart"] });
    const client = watching({ maxAttempts: 1 });
    client.holdPart = 1;
    client.partCount = 3;
    const logs: string[] = [];
    const r = await uploadFile({
      client,
      databaseId: DB,
      datasetId,
      path: file,
      partSize: PART,
      concurrency: 3,
      logger: (l) => logs.push(l),
    });

    expect(r).toMatchObject({ state: "PROCESSING", size, sha1: expected, partCount: 3, partSize: PART, partsSent: 3 });
    expect(client.maxInFlight).toBeGreaterThan(1);
    // Part 1 (held back) arrived last: the parts were sent out of order, and the file is still right.
    expect(client.completed).toHaveLength(3);
    expect(client.completed.at(-1)).toBe(1);
    expect([...client.completed].sort()).toEqual([1, 2, 3]);
    // One PUT failed (part 2 or 3, the first to arrive) and went again through a fresh URL.
    expect(client.failed).toHaveLength(1);
    expect([2, 3]).toContain(client.failed[0]);
    expect(counts()).toMatchObject({ PostSourceFilePart: 4, PutSourceFilePart: 4, PostSourceFile: 1 });
    expect(logs.join("\n")).toMatch(new RegExp(`part ${client.failed[0]}: .*500.*retrying with a new URL`));
    expect(fs.readFileSync(stored(r.sourceFileId).path!).equals(bytes)).toBe(true);
  });

  it("gives up on a part after partAttempts fresh URLs, saying which source file to resume", async () => {
    const { file } = makeFile("stubborn.bin", 1000, 3);
    emu.traffic.faults.set({ rates: { "500": 1 }, operations: ["PutSourceFilePart"] });
    const err = await uploadFile({ client: clientFor({ maxAttempts: 1 }), databaseId: DB, datasetId, path: file, partAttempts: 2 }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(UploadError);
    expect(err.message).toMatch(/stopped with 0 of 1 parts.*500.*resume with \{resume: \{sourceFileId: \d+\}\}/);
    expect(err.cause).toBeInstanceOf(ApiError);
    expect(count("PostSourceFilePart")).toBe(2);
    expect(count("PostSourceFile")).toBe(0);
    expect(stored(err.sourceFileId).state).toBe("UPLOADING");
  });

  it("resumes an interrupted upload, sending only the parts the service lacks", async () => {
    const { file, sha1: expected, bytes } = makeFile("resume.bin", 3 * PART, 4);
    const stop = new AbortController();
    const err = await uploadFile({
      client: clientFor(),
      databaseId: DB,
      datasetId,
      path: file,
      partSize: PART,
      concurrency: 1,
      signal: stop.signal,
      onProgress: (p) => p.partsDone === 1 && stop.abort(new Error("interrupted by the test")),
    }).catch((e) => e);
    expect(err).toBeInstanceOf(UploadError);
    expect(err).toMatchObject({ partsDone: 1, partCount: 3 });
    expect(err.cause.message).toBe("interrupted by the test");
    const id: number = err.sourceFileId;
    expect(emu.store.uploads.listParts(DB, id).map((p) => p.partNumber)).toEqual([1]);
    expect(count("PostSourceFile")).toBe(0);

    emu.traffic.log.reset();
    const r = await uploadFile({ client: clientFor(), databaseId: DB, datasetId, path: file, resume: { sourceFileId: id } });
    // No partSize given: the earlier attempt's 5 MiB parts are kept, so part 1 lines up and is reused.
    expect(r).toMatchObject({ sourceFileId: id, state: "PROCESSING", sha1: expected, partCount: 3, partsSent: 2, partsReused: 1 });
    expect(counts()).toEqual({ PostDatasetFile: 0, PostSourceFilePart: 2, PutSourceFilePart: 2, GetSourceFileParts: 1, PostSourceFile: 1 });
    expect(fs.readFileSync(stored(id).path!).equals(bytes)).toBe(true);
  });

  it("a part corrupted in transit is refused by the SHA1 at completion; resuming re-sends just that part", async () => {
    const { file, sha1: expected, bytes } = makeFile("corrupt.bin", 2 * PART + 10, 5);
    const client = watching();
    client.corruptPart = 2;
    const err = await uploadFile({ client, databaseId: DB, datasetId, path: file, partSize: PART }).catch((e) => e);
    expect(err).toBeInstanceOf(UploadError);
    expect(err.cause).toBeInstanceOf(ApiError);
    expect(err.cause.status).toBe(400);
    expect(err.message).toMatch(/sha1.*does not match/i);
    expect(stored(err.sourceFileId).state).toBe("UPLOADING");

    // Part 2 has the right size but the wrong MD5 ETag: only it goes again.
    emu.traffic.log.reset();
    const r = await uploadFile({
      client: clientFor(),
      databaseId: DB,
      datasetId,
      path: file,
      partSize: PART,
      resume: { sourceFileId: err.sourceFileId },
    });
    expect(r).toMatchObject({ sha1: expected, partsSent: 1, partsReused: 2 });
    expect(count("PutSourceFilePart")).toBe(1);
    expect(fs.readFileSync(stored(r.sourceFileId).path!).equals(bytes)).toBe(true);
  });

  it("refuses to complete when the file's SHA1 is not the planned one", async () => {
    const { file } = makeFile("changed.bin", 5000, 6);
    const err = await uploadFile({ client: clientFor(), databaseId: DB, datasetId, path: file, expectedSha1: "0".repeat(40) }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(UploadError);
    expect(err.message).toMatch(/changed since it was planned; the upload was not completed/);
    expect(count("PostSourceFile")).toBe(0);
  });

  it("hands a direct link to the service, which fetches it with Range requests", async () => {
    const bytes = makeFile("linked.bin", 3 * MiB + 17, 7).bytes;
    const ranges: string[] = [];
    const server = http.createServer((req, res) => {
      const m = /^bytes=(\d+)-(\d+)?$/.exec(req.headers.range ?? "");
      if (!m) return res.writeHead(200, { "content-length": bytes.length }).end(bytes);
      ranges.push(req.headers.range!);
      const start = Number(m[1]);
      const end = Math.min(bytes.length - 1, m[2] === undefined ? bytes.length - 1 : Number(m[2]));
      res.writeHead(206, { "content-range": `bytes ${start}-${end}/${bytes.length}`, "content-length": end - start + 1 });
      res.end(bytes.subarray(start, end + 1));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const link = `http://127.0.0.1:${(server.address() as AddressInfo).port}/exports/linked.bin?sig=abc`;
      const r = await uploadFile({ client: clientFor(), databaseId: DB, datasetId, directLink: link });
      expect(r).toMatchObject({ state: "UPLOADING", size: null, sha1: null, partCount: 0, partsSent: 0 });
      expect(counts()).toMatchObject({ PostDatasetFile: 1, PostSourceFilePart: 0, PutSourceFilePart: 0, PostSourceFile: 0 });
      await emu.store.uploads.settled(r.sourceFileId);
      const f = stored(r.sourceFileId);
      expect(f).toMatchObject({ filename: "linked.bin", size: bytes.length, sha1: sha1(bytes) });
      expect(["PROCESSING", "PROCESSED"]).toContain(f.state);
      expect(ranges.length).toBeGreaterThan(0);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("refuses bad options before sending anything", async () => {
    const { file } = makeFile("ok.bin", 10, 8);
    const client = clientFor();
    const base = { client, databaseId: DB, datasetId };
    const rejects = async (opts: object, parameter: string, rule: RegExp) => {
      const err = await uploadFile({ ...base, ...opts } as any).catch((e) => e);
      expect(err).toBeInstanceOf(ParameterError);
      expect(err.parameter).toBe(parameter);
      expect(err.rule).toMatch(rule);
    };
    await rejects({ path: file, directLink: "https://files.example.com/a.zip" }, "path", /exactly one of path and directLink/);
    await rejects({}, "path", /exactly one of path and directLink/);
    await rejects({ path: path.join(dir, "missing.bin") }, "path", /no file at/);
    await rejects({ path: dir }, "path", /not a regular file/);
    await rejects({ directLink: "http://files.example.com/a.zip" }, "directLink", /plain http.*must use https/);
    await rejects({ directLink: "ftp://files.example.com/a.zip" }, "directLink", /must use https/);
    await rejects({ directLink: "https://user:pw@files.example.com/a.zip" }, "directLink", /user name or password/);
    await rejects({ directLink: "https://files.example.com/" }, "filename", /is required/);
    await rejects({ directLink: "https://files.example.com/a.zip", resume: { sourceFileId: 1 } }, "resume", /nothing to resume/);
    await rejects({ path: file, concurrency: 0 }, "concurrency", /./);

    // Too many parts, and too large: sparse files, so nothing is written or read.
    const big = path.join(dir, "sparse-52g.bin");
    fs.closeSync(fs.openSync(big, "w"));
    fs.truncateSync(big, PART * 10_000 + 1);
    await rejects({ path: big, partSize: PART }, "partSize", /10,001 parts/);
    fs.truncateSync(big, UPLOAD_RULES.maxFileSize + 1);
    await rejects({ path: big }, "path", /at most 5TB/);
    fs.rmSync(big);
    expect(emu.traffic.log.list()).toHaveLength(0);
  });
});
