/**
 * The upload benchmark (issue 7): throughput of a multi-part upload of a 1 GiB file to the
 * emulator against one plain PUT of the same bytes, in the same run, and the peak memory of the
 * uploading process, which must stay near (parts in flight × part size), not the file size.
 *
 * The emulator runs in this process; every upload runs in a child process (bench/uploadChild.ts),
 * so its maxRSS is the upload's alone. A child that loads the same modules and does nothing gives
 * Node's own footprint, subtracted to get the upload's share. The file is generated (a repeated
 * random block) in the temp folder, so it sits in the page cache for every run.
 *
 * Variants, each run `rounds` times (best kept), interleaved so neither gets a warmer machine:
 * - multipart: uploadFile with the spec's recommended part size (50,000,000 bytes for 1 GiB, so
 *   22 parts) and 4 in flight, SHA1 computed and checked by the service, completed;
 * - single PUT: the whole file streamed as ONE part to the emulator's part URL (allowed under
 *   5GB), then completed: same server work (stored to disk, assembled), no parallelism;
 * - discard PUT: the whole file streamed to a plain node:http server that throws it away, the
 *   ceiling of one connection on this machine (reported, not part of the ratio).
 *
 * Run alone: `npm run build && node dist/bench/upload.js` (prints a table; `--json` prints JSON).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { SEEDED, startEmulator } from "../emulator";
import { ReviewAdminClient } from "../provider/client";
import { planParts } from "../provider/upload/plan";
import type { UploadJob, UploadJobResult } from "./uploadChild";

/** Options of {@link benchUpload}. */
export interface UploadBenchOptions {
  /** File size (default 1 GiB). */
  fileBytes?: number;
  /** Part size of the multipart upload (default the spec's recommendation). */
  partSize?: number;
  /** Parts in flight (default 4, uploadFile's default). */
  concurrency?: number;
  /** Runs of each variant; the best is kept (default 2). */
  rounds?: number;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

/** One variant's best run. */
export interface UploadFigures {
  wallMs: number;
  /** Decimal megabytes (10^6 bytes) per second of file bytes. */
  mbPerSecond: number;
  /** Peak resident memory of the uploading process. */
  maxRssBytes: number;
  /** maxRssBytes minus the idle process's: what the upload itself held. */
  uploadRssBytes: number;
  /** Every run's wall time, in order. */
  runsMs: number[];
}

/** The benchmark's figures. */
export interface UploadBenchResult {
  fileBytes: number;
  partSize: number;
  partCount: number;
  concurrency: number;
  multipart: UploadFigures;
  singlePut: UploadFigures;
  discardPut: UploadFigures;
  /** multipart throughput / single-PUT throughput (same bytes, same server, same run). */
  throughputRatio: number;
  memory: {
    /** Peak RSS of a child that loads the same modules and uploads nothing. */
    idleRssBytes: number;
    /** concurrency × partSize: the buffers uploadFile may hold at once. */
    boundBytes: number;
    /** Multipart upload's own peak (uploadRssBytes) over the bound. */
    ofBound: number;
    /** Multipart upload's own peak over the file size. */
    ofFile: number;
    /** The upload's own peak stays within 1.25 × the bound + 32 MiB (sockets, modules' buffers). */
    withinBound: boolean;
  };
  /** The service's SHA1 of the assembled multipart file equals the file's. */
  sha1Verified: boolean;
  notes: string[];
  totalWallMs: number;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const DB = SEEDED.databases.open;

/** Writes `bytes` of a repeated 8 MiB random block (quick to make, incompressible enough). */
async function makeFile(file: string, bytes: number): Promise<void> {
  const block = randomBytes(8 * MiB);
  const fh = await fs.promises.open(file, "w");
  try {
    for (let off = 0; off < bytes; off += block.length) {
      // Vary each block a little so no two parts are identical.
      block.writeUInt32LE(off / block.length, 0);
      await fh.write(block, 0, Math.min(block.length, bytes - off), off);
    }
  } finally {
    await fh.close();
  }
}

/** Runs one job in a child process (compiled uploadChild.js beside this file). */
function runChild(job: UploadJob): Promise<UploadJobResult> {
  const script = path.join(__dirname, "uploadChild.js");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, JSON.stringify(job)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`upload child (${job.mode}) exited ${code}: ${err.trim()}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").pop()!) as UploadJobResult);
      } catch {
        reject(new Error(`upload child (${job.mode}) printed no result: ${out}${err}`));
      }
    });
  });
}

/** A plain node:http server that reads and discards every body and answers 200 with an ETag. */
async function discardServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.on("data", () => {});
    req.on("end", () => res.writeHead(200, { etag: '"discarded"', "content-length": "0" }).end());
  });
  server.requestTimeout = 0;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/discard`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function figures(runs: UploadJobResult[], fileBytes: number, idleRss: number): UploadFigures {
  const best = runs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
  const maxRssBytes = Math.max(...runs.map((r) => r.maxRssBytes));
  return {
    wallMs: Math.round(best.wallMs),
    mbPerSecond: Math.round((fileBytes / 1e6 / (best.wallMs / 1000)) * 10) / 10,
    maxRssBytes,
    uploadRssBytes: Math.max(0, maxRssBytes - idleRss),
    runsMs: runs.map((r) => Math.round(r.wallMs)),
  };
}

/** Runs the upload benchmark (about 30 to 60 s for 1 GiB on two cores). */
export async function benchUpload(opts: UploadBenchOptions = {}): Promise<UploadBenchResult> {
  const t0 = performance.now();
  const fileBytes = opts.fileBytes ?? GiB;
  const concurrency = opts.concurrency ?? 4;
  const rounds = opts.rounds ?? 2;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const plan = planParts(fileBytes, opts.partSize);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-upload-"));
  const file = path.join(dir, "bench-1g.bin");
  // The service's rate limit as it is (25/s): the multipart upload's 24 API calls fit in it.
  const emu = await startEmulator();
  const sink = await discardServer();
  try {
    log(`upload: writing a ${fileBytes.toLocaleString("en-US")}-byte file`);
    await makeFile(file, fileBytes);
    const apiKey = emu.keys.orgAdmin;
    const setup = new ReviewAdminClient({ baseUrl: emu.url, apiKey });
    const datasetId = (await setup.call("PostDatabaseDataset", { databaseId: DB }, { name: "Upload benchmark" })).id;
    await setup.close();
    const job = { baseUrl: emu.url, apiKey, databaseId: DB, datasetId, path: file };

    const idle = await runChild({ ...job, mode: "idle" });
    const runs: Record<"multipart" | "single" | "discard", UploadJobResult[]> = { multipart: [], single: [], discard: [] };
    for (let round = 1; round <= rounds; round++) {
      for (const mode of ["discard", "single", "multipart"] as const) {
        const r = await runChild({ ...job, mode, partSize: plan.partSize, concurrency, url: sink.url });
        runs[mode].push(r);
        log(`upload: round ${round} ${mode}: ${(r.wallMs / 1000).toFixed(2)} s, maxRSS ${(r.maxRssBytes / MiB).toFixed(0)} MiB`);
        // Keep the disk tidy: the assembled file is not needed once measured.
        if (r.sourceFileId !== undefined && mode !== "multipart") {
          const stored = emu.store.uploads.sourceFile(DB, r.sourceFileId);
          if (stored.path) fs.rmSync(stored.path, { force: true });
        }
      }
    }

    const last = runs.multipart.at(-1)!;
    const stored = emu.store.uploads.sourceFile(DB, last.sourceFileId!);
    const sha1Verified = stored.sha1 === last.sha1 && stored.size === fileBytes;

    const multipart = figures(runs.multipart, fileBytes, idle.maxRssBytes);
    const singlePut = figures(runs.single, fileBytes, idle.maxRssBytes);
    const discardPut = figures(runs.discard, fileBytes, idle.maxRssBytes);
    const boundBytes = concurrency * plan.partSize;
    return {
      fileBytes,
      partSize: plan.partSize,
      partCount: plan.partCount,
      concurrency,
      multipart,
      singlePut,
      discardPut,
      throughputRatio: Math.round((multipart.mbPerSecond / singlePut.mbPerSecond) * 100) / 100,
      memory: {
        idleRssBytes: idle.maxRssBytes,
        boundBytes,
        ofBound: Math.round((multipart.uploadRssBytes / boundBytes) * 100) / 100,
        ofFile: Math.round((multipart.uploadRssBytes / fileBytes) * 100) / 100,
        withinBound: multipart.uploadRssBytes <= 1.25 * boundBytes + 32 * MiB,
      },
      sha1Verified,
      notes: [
        `Best of ${rounds} runs per variant, interleaved; emulator and uploads on one machine (${os.cpus().length} cores), loopback, file in the page cache.`,
        "Both emulator variants include the service's work: parts written to disk, then assembled (and hashed) at completion.",
        "The single PUT streams the file (a few MiB in memory) and sends no SHA1; the multipart upload holds up to `concurrency` part buffers and computes the SHA1 while reading.",
      ],
      totalWallMs: Math.round(performance.now() - t0),
    };
  } finally {
    await sink.close();
    await emu.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const mib = (n: number) => `${(n / MiB).toFixed(0)} MiB`;

/** The figures as a plain-text table for the terminal. */
export function uploadText(r: UploadBenchResult): string {
  const row = (name: string, f: UploadFigures) =>
    `  ${name.padEnd(34)} ${(f.wallMs / 1000).toFixed(2).padStart(7)} ${f.mbPerSecond.toFixed(1).padStart(8)} ${mib(f.maxRssBytes).padStart(9)} ${mib(f.uploadRssBytes).padStart(10)}`;
  return [
    `Upload benchmark: ${r.fileBytes.toLocaleString("en-US")} bytes, ${r.partCount} parts of ${r.partSize.toLocaleString("en-US")} bytes, ${r.concurrency} in flight`,
    `  ${"variant".padEnd(34)} ${"wall s".padStart(7)} ${"MB/s".padStart(8)} ${"maxRSS".padStart(9)} ${"upload's".padStart(10)}`,
    row(`multipart uploadFile (${r.concurrency} in flight)`, r.multipart),
    row("single PUT, one part (emulator)", r.singlePut),
    row("single PUT to a discarding server", r.discardPut),
    `  throughput multipart / single PUT: ${r.throughputRatio.toFixed(2)}x; SHA1 verified by the service: ${r.sha1Verified ? "yes" : "NO"}`,
    `  memory: idle process ${mib(r.memory.idleRssBytes)}; upload's own peak ${mib(r.multipart.uploadRssBytes)} = ${r.memory.ofBound.toFixed(2)} x bound ` +
      `(${r.concurrency} x part size = ${mib(r.memory.boundBytes)}), ${r.memory.ofFile.toFixed(2)} x file size; within bound: ${r.memory.withinBound ? "yes" : "NO"}`,
    `  total ${(r.totalWallMs / 1000).toFixed(1)} s`,
  ].join("\n");
}

/** The figures as Markdown, for bench/results/ (docs/benchmarks.md quotes them). */
export function uploadMarkdown(r: UploadBenchResult): string {
  const row = (name: string, f: UploadFigures) =>
    `| ${name} | ${(f.wallMs / 1000).toFixed(2)} s | ${f.mbPerSecond.toFixed(1)} | ${mib(f.maxRssBytes)} | ${mib(f.uploadRssBytes)} |`;
  return [
    `### Upload: ${r.fileBytes >= GiB ? `${(r.fileBytes / GiB).toFixed(1)} GiB` : `${(r.fileBytes / MiB).toFixed(0)} MiB`}, ${r.partCount} parts of ${r.partSize.toLocaleString("en-US")} bytes, ${r.concurrency} in flight`,
    "",
    "| variant | wall | MB/s | peak RSS | upload's own |",
    "|---|---:|---:|---:|---:|",
    row("multipart uploadFile", r.multipart),
    row("single PUT, one part (emulator)", r.singlePut),
    row("single PUT to a discarding server", r.discardPut),
    "",
    `Throughput multipart / single PUT: **${r.throughputRatio.toFixed(2)}×**. Upload's own peak memory ${mib(r.multipart.uploadRssBytes)}: ` +
      `${r.memory.ofBound.toFixed(2)}× the bound (${r.concurrency} × part size = ${mib(r.memory.boundBytes)}), ${r.memory.ofFile.toFixed(2)}× the file size.`,
    "",
    ...r.notes.map((n) => `- ${n}`),
  ].join("\n");
}

if (require.main === module) {
  benchUpload().then(
    (r) => process.stdout.write((process.argv.includes("--json") ? JSON.stringify(r, null, 2) : uploadText(r)) + "\n"),
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
