/**
 * Native uploads (up1 to up5 and the part PUT): datasets, source files, parts and direct-link
 * downloads. Bytes live on disk in a temp folder and are streamed, never held whole in memory.
 *
 * The part PUT: up3 hands out a pre-authenticated URL on the emulator itself,
 * `${baseUrl}/_upload/<token>`, which is not an API route and carries no API key; the token is
 * the credential. ../partUpload.ts serves those URLs and calls `receivePart` here.
 *
 * State: the JSON-able part (datasets, source files, part metadata) is the world's `uploadState`
 * (type UploadState), so reset and --state cover it; the live part (temp folder, part URL
 * tokens, timers, downloads) is an UploadStore, the store's `uploads` field (store.ts).
 *
 * Choices where the spec is silent:
 * - Dataset cap: 25 per database by default (422 naming the limit), changeable per database
 *   (`setDatasetLimit`, as the service lifts limits "on request").
 * - A part URL stays valid while the file is UPLOADING and the emulator runs; asking again for
 *   the same part number gives a new URL, and the last part received wins.
 * - ETag: the part's MD5 in hex, in double quotes (as S3). Complete compares ETags with or
 *   without the quotes, case-insensitively.
 * - Complete refuses (400) a gap, a part uploaded but not listed, a part other than the last
 *   outside 5MB..5GB, over 10,000 parts, over 5TB, an ETag that differs, and a SHA1 that differs
 *   (the file then stays UPLOADING, so the bad part can be sent again).
 * - A repeated completion (its answer was lost, so the client asks again) is answered as a careful
 *   service would: the same ETags (and the same SHA1, or none) as the completion that succeeded
 *   get 200 and the file's current view, with nothing done again; different ETags or a different
 *   SHA1 get 400 "source file N is PROCESSING (or PROCESSED), not UPLOADING", as any other
 *   completion of a file no longer uploading does.
 * - After complete or a finished direct-link download: PROCESSING, then PROCESSED after
 *   `processingDelayMs` of real time or once the emulator clock passes that delay.
 * - A direct link must answer 206 to a Range request (the spec: the host must support HTTP
 *   Range requests); otherwise the file goes to state FAILED with `error` saying why.
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { request } from "undici";
import type { CompleteUploadRequest, CreateDatasetRequest, CreateSourceFileRequest, UploadedPart } from "../../contract/types";
import { BadRequest, NotFound, Unprocessable } from "./errors";
import type { DatasetRecord, SourceFileRecord, SourceFileStateName, UploadState } from "./records";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Spec limits: parts of 5MB to 5GB (the last has no minimum), 10,000 parts, files up to 5TB. */
export const UPLOAD_LIMITS = {
  minPartSize: 5 * MiB,
  maxPartSize: 5 * GiB,
  maxParts: 10_000,
  maxFileSize: 5 * 1024 * GiB,
} as const;

/** Datasets per database unless changed with setDatasetLimit (the spec does not give the number). */
export const DEFAULT_DATASET_LIMIT = 25;

/** Path prefix of part upload URLs on the emulator. */
export const PART_UPLOAD_PREFIX = "/_upload/";

/** Options of an UploadStore; tests shrink the part size and the delays. */
export interface UploadOptions {
  /** Folder for parts and files; a new temp folder by default (removed at exit). */
  dir?: string;
  datasetLimit?: number;
  minPartSize?: number;
  maxPartSize?: number;
  maxParts?: number;
  maxFileSize?: number;
  /** Real milliseconds from PROCESSING to PROCESSED (default 200). */
  processingDelayMs?: number;
  /** Bytes per Range request of a direct-link download (default 8MiB). */
  rangeChunkSize?: number;
  /** The emulator clock (unix ms). */
  now?: () => number;
  /** Called after every change (the store saves its state file). */
  onChange?: () => void;
}

/** A source file as the API shows it. */
export type SourceFileView = {
  id: number;
  state: SourceFileStateName;
  filename: string;
  datasetId: number;
  size?: number;
  sha1?: string;
  error?: string;
};

/** An empty upload state. */
export function emptyUploadState(): UploadState {
  return { nextDatasetId: 6001, nextSourceFileId: 7001, datasets: {}, sourceFiles: {}, datasetLimits: {} };
}

// Temp folders made here are removed when the process exits.
const tempDirs = new Set<string>();
let exitHookInstalled = false;
function makeTempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-uploads-"));
  tempDirs.add(dir);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}

function unquote(etag: string): string {
  return etag
    .trim()
    .replace(/^"(.*)"$/, "$1")
    .toLowerCase();
}

async function removeQuietly(file: string | undefined): Promise<void> {
  if (file) await fs.promises.rm(file, { force: true });
}

/** Datasets, source files and their bytes, with the upload rules of the spec. */
export class UploadStore {
  readonly state: UploadState;
  readonly dir: string;
  private readonly opts: Required<Omit<UploadOptions, "dir" | "onChange" | "now">>;
  private readonly now: () => number;
  private readonly onChange: () => void;
  /** Part URL token → the part it uploads. */
  private readonly tokens = new Map<string, { sourceFileId: number; partNumber: number }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly downloads = new Map<number, Promise<void>>();
  private readonly completing = new Set<number>();

  constructor(options: UploadOptions = {}, state: UploadState = emptyUploadState()) {
    this.state = state;
    this.dir = options.dir ?? makeTempDir();
    fs.mkdirSync(this.dir, { recursive: true });
    this.opts = {
      datasetLimit: options.datasetLimit ?? DEFAULT_DATASET_LIMIT,
      minPartSize: options.minPartSize ?? UPLOAD_LIMITS.minPartSize,
      maxPartSize: options.maxPartSize ?? UPLOAD_LIMITS.maxPartSize,
      maxParts: options.maxParts ?? UPLOAD_LIMITS.maxParts,
      maxFileSize: options.maxFileSize ?? UPLOAD_LIMITS.maxFileSize,
      processingDelayMs: options.processingDelayMs ?? 200,
      rangeChunkSize: options.rangeChunkSize ?? 8 * MiB,
    };
    this.now = options.now ?? Date.now;
    this.onChange = options.onChange ?? (() => {});
    // A loaded state: finish what was under way (processing timers, direct-link downloads).
    for (const f of Object.values(state.sourceFiles)) {
      for (const [n, part] of Object.entries(f.parts)) if (!fs.existsSync(part.path)) delete f.parts[n];
      if (f.state === "PROCESSING") this.scheduleProcessed(f);
      if (f.state === "UPLOADING" && f.request.directLink) this.startDownload(f);
    }
  }

  // ----- datasets -----

  /** The dataset cap of a database. */
  datasetLimit(databaseId: number): number {
    return this.state.datasetLimits[databaseId] ?? this.opts.datasetLimit;
  }

  /** Changes the dataset cap of one database (the service lifts caps on request). */
  setDatasetLimit(databaseId: number, limit: number): void {
    this.state.datasetLimits[databaseId] = limit;
    this.onChange();
  }

  /** up1: creates a dataset; Unprocessable (422) naming the limit when the database is at its cap. */
  createDataset(databaseId: number, req: CreateDatasetRequest): { id: number; name: string } {
    const limit = this.datasetLimit(databaseId);
    const count = Object.values(this.state.datasets).filter((d) => d.databaseId === databaseId).length;
    if (count >= limit) {
      throw new Unprocessable(`dataset limit of ${limit} datasets per database reached (database ${databaseId})`);
    }
    const d: DatasetRecord = {
      id: this.state.nextDatasetId++,
      databaseId,
      name: req.name,
      created: new Date(this.now()).toISOString(),
      request: structuredClone(req),
    };
    this.state.datasets[d.id] = d;
    this.onChange();
    return { id: d.id, name: d.name };
  }

  /** The dataset of that database, or NotFound. */
  dataset(databaseId: number, datasetId: number): DatasetRecord {
    const d = this.state.datasets[datasetId];
    if (!d || d.databaseId !== databaseId) throw new NotFound(`dataset of database ${databaseId}:`, datasetId);
    return d;
  }

  // ----- source files -----

  /**
   * up2: creates a source file, UPLOADING. With a direct link the download starts at once and
   * the file moves on by itself (PROCESSING, PROCESSED, or FAILED).
   */
  createSourceFile(databaseId: number, datasetId: number, req: CreateSourceFileRequest): SourceFileView {
    this.dataset(databaseId, datasetId);
    if (req.directLink !== undefined && !/^https?:$/.test(new URL(req.directLink).protocol)) {
      throw new BadRequest("directLink", "must be an http or https URL");
    }
    const f: SourceFileRecord = {
      id: this.state.nextSourceFileId++,
      databaseId,
      datasetId,
      filename: req.filename,
      request: structuredClone(req),
      state: "UPLOADING",
      parts: {},
    };
    this.state.sourceFiles[f.id] = f;
    this.onChange();
    if (req.directLink !== undefined) this.startDownload(f);
    return this.view(f);
  }

  /** The source file of that database, or NotFound. */
  sourceFile(databaseId: number, sourceFileId: number): SourceFileRecord {
    const f = this.state.sourceFiles[sourceFileId];
    if (!f || f.databaseId !== databaseId) throw new NotFound(`source file of database ${databaseId}:`, sourceFileId);
    this.settleProcessing(f);
    return f;
  }

  /** The API view of a source file. */
  view(f: SourceFileRecord): SourceFileView {
    this.settleProcessing(f);
    const v: SourceFileView = { id: f.id, state: f.state, filename: f.filename, datasetId: f.datasetId };
    if (f.size !== undefined) v.size = f.size;
    if (f.sha1 !== undefined) v.sha1 = f.sha1;
    if (f.error !== undefined) v.error = f.error;
    return v;
  }

  /** Resolves once a direct-link download has ended (at once when none runs). */
  async settled(sourceFileId: number): Promise<void> {
    await this.downloads.get(sourceFileId);
  }

  private requireUploading(f: SourceFileRecord, what: string): void {
    if (f.request.directLink !== undefined) {
      throw new BadRequest("sourceFileId", `source file ${f.id} is fetched from its direct link; it takes no ${what}`);
    }
    if (f.state !== "UPLOADING")
      throw new BadRequest("sourceFileId", `source file ${f.id} is ${f.state}, not UPLOADING; it takes no more ${what}`);
  }

  // ----- parts -----

  /** up3: a pre-authenticated URL on the emulator for one part; a new one on every call. */
  partUrl(databaseId: number, sourceFileId: number, partNumber: number, baseUrl: string): { partNumber: number; url: string } {
    const f = this.sourceFile(databaseId, sourceFileId);
    this.requireUploading(f, "parts");
    if (partNumber < 1 || partNumber > this.opts.maxParts) {
      throw new BadRequest("partNumber", `must be from 1 to ${this.opts.maxParts}`);
    }
    const token = randomBytes(24).toString("hex");
    this.tokens.set(token, { sourceFileId, partNumber });
    return { partNumber, url: `${baseUrl}${PART_UPLOAD_PREFIX}${token}` };
  }

  /**
   * The part PUT: streams `body` to disk while hashing it and returns the ETag. A part received
   * again replaces the earlier one.
   */
  async receivePart(token: string, body: AsyncIterable<Uint8Array>): Promise<{ etag: string; size: number }> {
    const target = this.tokens.get(token);
    if (!target) throw new NotFound("part upload URL", token.slice(0, 8) + "...");
    const f = this.state.sourceFiles[target.sourceFileId];
    if (!f) throw new NotFound("source file", target.sourceFileId);
    this.requireUploading(f, "parts");

    const folder = path.join(this.dir, `sourcefile-${f.id}`);
    await fs.promises.mkdir(folder, { recursive: true });
    // A unique name per upload: a retried part racing the first cannot mix their bytes.
    const file = path.join(folder, `part-${target.partNumber}-${randomBytes(6).toString("hex")}`);
    const md5 = createHash("md5");
    let size = 0;
    const maxPartSize = this.opts.maxPartSize;
    // A write stream buffers while the disk catches up, instead of one awaited write per chunk.
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.byteLength;
        if (size > maxPartSize) return done(new BadRequest("part", `must be at most ${maxPartSize} bytes (5GB)`));
        md5.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(body, count, fs.createWriteStream(file, { highWaterMark: 4 * 1024 * 1024 }));
    } catch (err) {
      await removeQuietly(file);
      throw err;
    }
    if (f.state !== "UPLOADING") {
      await removeQuietly(file);
      this.requireUploading(f, "parts");
    }
    const etag = `"${md5.digest("hex")}"`;
    const previous = f.parts[target.partNumber];
    f.parts[target.partNumber] = { etag, size, path: file };
    await removeQuietly(previous?.path);
    this.onChange();
    return { etag, size };
  }

  /** up4: the parts received so far, by part number. */
  listParts(databaseId: number, sourceFileId: number): UploadedPart[] {
    const f = this.sourceFile(databaseId, sourceFileId);
    return Object.entries(f.parts)
      .map(([n, p]) => ({ partNumber: Number(n), etag: p.etag, size: p.size }))
      .sort((a, b) => a.partNumber - b.partNumber);
  }

  /**
   * up5: checks the parts against the ETags and the rules, assembles them into one file
   * (streaming, hashing SHA1), checks the SHA1 when given, and starts processing.
   */
  async complete(databaseId: number, sourceFileId: number, req: CompleteUploadRequest): Promise<SourceFileView> {
    const f = this.sourceFile(databaseId, sourceFileId);
    if (this.repeatsCompletion(f, req)) return this.view(f);
    this.requireUploading(f, "completion");
    if (this.completing.has(f.id)) throw new BadRequest("sourceFileId", `source file ${f.id} is already being completed`);
    const { minPartSize, maxPartSize, maxParts, maxFileSize } = this.opts;
    const count = req.etags.length;
    if (count > maxParts) throw new BadRequest("etags", `a file has at most ${maxParts} parts; ${count} ETags were sent`);
    for (let n = 1; n <= count; n++) {
      if (!f.parts[n]) throw new BadRequest("etags", `part ${n} has not been uploaded (parts are numbered 1 to ${count} with no gap)`);
    }
    const extra = Object.keys(f.parts)
      .map(Number)
      .filter((n) => n > count)
      .sort((a, b) => a - b);
    if (extra.length > 0) throw new BadRequest("etags", `part ${extra[0]} was uploaded but has no ETag in the list (${count} ETags sent)`);
    let total = 0;
    for (let n = 1; n <= count; n++) {
      const part = f.parts[n];
      total += part.size;
      if (n < count && (part.size < minPartSize || part.size > maxPartSize)) {
        throw new BadRequest(
          "etags",
          `part ${n} is ${part.size} bytes; every part but the last must be ${minPartSize} to ${maxPartSize} bytes (5MB to 5GB)`,
        );
      }
      if (unquote(req.etags[n - 1]) !== unquote(part.etag)) {
        throw new BadRequest(`etags.${n - 1}`, `does not match the ETag of part ${n} (${part.etag}); ETags go in part order`);
      }
    }
    if (total > maxFileSize) throw new BadRequest("etags", `the file is ${total} bytes, over the ${maxFileSize}-byte (5TB) maximum`);

    this.completing.add(f.id);
    const file = path.join(this.dir, `sourcefile-${f.id}`, `file-${randomBytes(6).toString("hex")}`);
    try {
      const sha1 = createHash("sha1");
      const out = await fs.promises.open(file, "w");
      try {
        for (let n = 1; n <= count; n++) {
          for await (const chunk of fs.createReadStream(f.parts[n].path)) {
            sha1.update(chunk as Buffer);
            await out.write(chunk as Buffer);
          }
        }
      } finally {
        await out.close();
      }
      const digest = sha1.digest("hex");
      if (req.sha1 !== undefined && req.sha1.toLowerCase() !== digest) {
        await removeQuietly(file);
        throw new BadRequest("sha1", `does not match the SHA1 of the assembled file (${digest}); the file stays UPLOADING`);
      }
      for (const part of Object.values(f.parts)) await removeQuietly(part.path);
      Object.assign(f, { path: file, size: total, sha1: digest });
      this.startProcessing(f);
      return this.view(f);
    } finally {
      this.completing.delete(f.id);
    }
  }

  /**
   * True when `req` is the completion that already assembled `f`, sent again: the same ETags in
   * the same order as its parts, and the file's SHA1 or none.
   */
  private repeatsCompletion(f: SourceFileRecord, req: CompleteUploadRequest): boolean {
    if (f.state === "UPLOADING" || f.request.directLink !== undefined || f.sha1 === undefined) return false;
    const parts = Object.keys(f.parts).length;
    if (req.etags.length !== parts) return false;
    if (!req.etags.every((etag, i) => f.parts[i + 1] !== undefined && unquote(etag) === unquote(f.parts[i + 1].etag))) return false;
    return req.sha1 === undefined || req.sha1.toLowerCase() === f.sha1;
  }

  // ----- processing -----

  private startProcessing(f: SourceFileRecord): void {
    f.state = "PROCESSING";
    f.processedAt = this.now() + this.opts.processingDelayMs;
    this.scheduleProcessed(f);
    this.onChange();
  }

  private scheduleProcessed(f: SourceFileRecord): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (f.state === "PROCESSING") {
        f.state = "PROCESSED";
        this.onChange();
      }
    }, this.opts.processingDelayMs);
    timer.unref();
    this.timers.add(timer);
  }

  /** PROCESSING becomes PROCESSED once the emulator clock passes the delay (the clock may be advanced). */
  private settleProcessing(f: SourceFileRecord): void {
    if (f.state === "PROCESSING" && f.processedAt !== undefined && this.now() >= f.processedAt) {
      f.state = "PROCESSED";
      this.onChange();
    }
  }

  // ----- direct links -----

  private startDownload(f: SourceFileRecord): void {
    const run = this.download(f).finally(() => this.downloads.delete(f.id));
    this.downloads.set(f.id, run);
  }

  /** Fetches a direct link in Range requests of rangeChunkSize bytes, streaming to disk. */
  private async download(f: SourceFileRecord): Promise<void> {
    const link = f.request.directLink!;
    const file = path.join(this.dir, `sourcefile-${f.id}`, `file-${randomBytes(6).toString("hex")}`);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const sha1 = createHash("sha1");
    const out = await fs.promises.open(file, "w");
    let offset = 0;
    let total: number | undefined;
    try {
      while (total === undefined || offset < total) {
        const last = offset + this.opts.rangeChunkSize - 1;
        const res = await request(link, { method: "GET", headers: { range: `bytes=${offset}-${last}` } });
        const contentRange = String(res.headers["content-range"] ?? "");
        if (res.statusCode === 416 && offset === 0 && /^bytes \*\/0$/.test(contentRange)) {
          await res.body.dump();
          total = 0;
          break;
        }
        if (res.statusCode !== 206) {
          await res.body.dump();
          throw new Error(
            res.statusCode === 200
              ? "the direct link's host does not support HTTP Range requests (it answered 200, not 206, to a Range request)"
              : `the direct link answered HTTP ${res.statusCode} to a Range request`,
          );
        }
        const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange);
        if (!m || Number(m[1]) !== offset) {
          await res.body.dump();
          throw new Error(`the direct link answered with an unusable Content-Range '${contentRange}' for bytes ${offset}-${last}`);
        }
        total = Number(m[3]);
        if (total > this.opts.maxFileSize) {
          await res.body.dump();
          throw new Error(`the file behind the direct link is ${total} bytes, over the ${this.opts.maxFileSize}-byte (5TB) maximum`);
        }
        const expected = Number(m[2]) - offset + 1;
        let received = 0;
        for await (const chunk of res.body) {
          received += chunk.byteLength;
          sha1.update(chunk);
          await out.write(chunk);
        }
        if (received !== expected) throw new Error(`the direct link sent ${received} bytes for a range of ${expected}`);
        offset += received;
      }
      await out.close();
      Object.assign(f, { path: file, size: total, sha1: sha1.digest("hex") });
      this.startProcessing(f);
    } catch (err) {
      await out.close().catch(() => {});
      await removeQuietly(file);
      f.state = "FAILED";
      f.error = err instanceof Error ? err.message : String(err);
      this.onChange();
    }
  }

  // ----- life cycle -----

  /** Stops timers (the state stays as it is). */
  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** Stops timers, waits for downloads and removes the folder. */
  async close(): Promise<void> {
    this.stop();
    await Promise.allSettled(this.downloads.values());
    await fs.promises.rm(this.dir, { recursive: true, force: true });
    tempDirs.delete(this.dir);
  }

  /** The JSON-able state. */
  toJSON(): UploadState {
    return this.state;
  }
}
