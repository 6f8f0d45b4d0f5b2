/**
 * uploadFile: native upload of one file into a dataset (spec "Native upload endpoints" and
 * "Upload rules"; contract up2 to up5 and the part PUT), for scripts and for the SourceFile
 * resource.
 *
 * From a local path:
 * - up2 creates the source file (or, to resume, up4 lists the parts the service already has);
 * - the file is read once, in order, part by part into at most `concurrency` buffers of the part
 *   size (never the whole file), and the whole file's SHA1 is updated as each part is read, so it
 *   covers the bytes in file order even though parts are sent out of order;
 * - each part gets a fresh URL (up3) and one PUT (client.putPart, which itself retries 429, 5xx
 *   and dropped connections on the same URL); a part that still fails is retried with a NEW URL,
 *   `partAttempts` times in all (spec, upload rule 3);
 * - when resuming, a part the service already holds with the right size (and, when its ETag is
 *   an MD5 as S3's and the emulator's are, the right MD5) is not sent again;
 * - up5 completes with the ETags in part order and the SHA1. Completion is safe to repeat: when
 *   its answer is lost it is sent again, and a service that answers the repeat (or a resumed
 *   upload's completion) with "source file N is PROCESSING/PROCESSED, not UPLOADING" has the file
 *   complete already, which is success.
 *
 * From a direct link: the link is checked (https; plain http only to loopback) and sent in up2;
 * the service fetches it by itself, so there are no parts.
 *
 * Failures before the source file exists are thrown as they come (ParameterError, ApiError...).
 * After, they are an UploadError carrying `sourceFileId`: pass `resume: {sourceFileId}` to
 * continue where it stopped.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { parseOrThrow, ParameterError } from "../../contract/params";
import type { CreateSourceFileRequest, UploadedPart } from "../../contract/schemas";
import { ApiError, InsecureUrlError, NetworkError, ResponseValidationError, type ReviewAdminClient } from "../client";
import { backoffMs, sleep } from "../client/retry";
import { answerLost } from "../failures";
import { currentClient } from "../settings";
import { checkDirectLink, defaultFilename, describeLink, partRange, planParts, type PartPlan } from "./plan";

/** Progress of an upload, reported after each part. */
export interface UploadProgress {
  /** Bytes the service holds: parts sent by this call plus parts it already had (resume). */
  bytesSent: number;
  totalBytes: number;
  /** Parts the service holds (sent, or already there). */
  partsDone: number;
  partCount: number;
}

/** Options of uploadFile. Exactly one of `path` and `directLink`. */
export interface UploadFileOptions {
  databaseId: number;
  datasetId: number;
  /** A local file, streamed in parts. Relative paths are resolved from the current directory. */
  path?: string;
  /** A URL the service fetches itself: https (plain http only to loopback), no user:password, its host supporting Range requests. */
  directLink?: string;
  /** Name of the source file; default the path's base name (or the link's last path segment). */
  filename?: string;
  /** Passwords tried on every encrypted file of the whole dataset. */
  passwords?: string[];
  /** File-level custodian (overrides the dataset's default custodian). */
  custodian?: string;
  /** Child path within the file (e.g. a folder ending in "/") → custodian name. */
  childCustodians?: Record<string, string>;
  /** Bytes per part; default the spec's recommendation (the larger of 50,000,000 and 1 + size/10,000). */
  partSize?: number;
  /** Parts in flight at once (default 4). Memory is about concurrency × partSize. */
  concurrency?: number;
  /** Tries per part, each with a fresh URL (default 3). */
  partAttempts?: number;
  /** Called after each part (and once at the start); an exception it throws is ignored. */
  onProgress?: (p: UploadProgress) => void;
  /** Called once the source file exists (created, or given to resume), before any part is sent. */
  onSourceFile?: (sourceFileId: number) => void;
  /** Receives one line per part retry. */
  logger?: (line: string) => void;
  /** Stops the upload; an UploadError (cause: the signal's reason) says which source file to resume. */
  signal?: AbortSignal;
  /** The client; default currentClient() (stack config or REVIEWADMIN_* environment variables). */
  client?: ReviewAdminClient;
  /** Continue an earlier upload of the same file: only the parts the service lacks are sent. */
  resume?: { sourceFileId: number };
  /** Refuse to complete when the file's SHA1 is not this (the file changed since it was planned). */
  expectedSha1?: string;
}

/** What an upload ended with. */
export interface UploadResult {
  sourceFileId: number;
  /** State the service answered with (PROCESSING after completion; UPLOADING for a direct link, which the service is fetching). */
  state: string;
  /** File size in bytes; null for a direct link (the client never sees the bytes). */
  size: number | null;
  /** SHA1 (hex) of the whole file, sent with the completion; null for a direct link. */
  sha1: string | null;
  /** Parts of the upload; 0 for a direct link. */
  partCount: number;
  /** Bytes per part (the last part may be shorter); null for a direct link. */
  partSize: number | null;
  /** Parts this call PUT (a part retried counts once). */
  partsSent: number;
  /** Parts the service already held and this call did not send again (resume). */
  partsReused: number;
}

/**
 * An upload that stopped after its source file was created. `sourceFileId` is what to pass as
 * `resume`; the parts already on the service are not sent again. `cause` is the underlying failure.
 */
export class UploadError extends Error {
  override readonly name = "UploadError";
  readonly code = "RA_ERR_UPLOAD";
  constructor(
    message: string,
    readonly sourceFileId: number,
    /** Parts the service holds. */
    readonly partsDone: number,
    readonly partCount: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_PART_ATTEMPTS = 3;
/** Read size within a part: the SHA1 is updated per chunk, so the event loop is never blocked long. */
const READ_CHUNK = 4 * 1024 * 1024;

const Options = z
  .object({
    databaseId: z.number().int().positive({ message: "must be a positive integer database id" }),
    datasetId: z.number().int().positive({ message: "must be a positive integer dataset id" }),
    path: z.string().min(1, { message: "must not be empty" }).optional(),
    directLink: z.string().optional(),
    filename: z.string().min(1, { message: "must not be empty" }).optional(),
    passwords: z.array(z.string()).optional(),
    custodian: z.string().min(1, { message: "must not be empty" }).optional(),
    childCustodians: z.record(z.string(), z.string()).optional(),
    partSize: z.number().int({ message: "must be an integer number of bytes" }).positive().optional(),
    concurrency: z.number().int().min(1).max(64, { message: "must be from 1 to 64" }).optional(),
    partAttempts: z.number().int().min(1).max(20, { message: "must be from 1 to 20" }).optional(),
    resume: z.object({ sourceFileId: z.number().int().positive({ message: "must be a positive integer source file id" }) }).optional(),
    expectedSha1: z
      .string()
      .regex(/^[0-9a-f]{40}$/i, { message: "must be 40 hex digits" })
      .optional(),
  })
  .refine((o) => (o.path === undefined) !== (o.directLink === undefined), {
    message: "give exactly one of path and directLink",
    path: ["path"],
  })
  .refine((o) => !(o.directLink !== undefined && o.resume !== undefined), {
    message: "a direct link has no parts, so there is nothing to resume",
    path: ["resume"],
  });

/** Uploads one file into a dataset; see the file comment and UploadFileOptions. */
export async function uploadFile(options: UploadFileOptions): Promise<UploadResult> {
  // Only the data options are checked by the schema; the callbacks, the signal and the client are not data.
  const {
    client,
    signal: _signal,
    onProgress: _onProgress,
    onSourceFile: _onSourceFile,
    logger: _logger,
    ...data
  } = options ?? ({} as UploadFileOptions);
  parseOrThrow(Options, data, "uploadFile");
  const api = client ?? currentClient();
  if (options.directLink !== undefined) return uploadLink(api, options);
  return new PathUpload(api, options).run();
}

/** The up2 body for these options. */
function createRequest(o: UploadFileOptions, filename: string): CreateSourceFileRequest {
  const body: CreateSourceFileRequest = { filename };
  if (o.passwords !== undefined) body.passwords = o.passwords;
  if (o.custodian !== undefined) body.custodian = o.custodian;
  if (o.childCustodians !== undefined) body.childCustodians = o.childCustodians;
  if (o.directLink !== undefined) body.directLink = o.directLink;
  return body;
}

async function uploadLink(client: ReviewAdminClient, o: UploadFileOptions): Promise<UploadResult> {
  checkDirectLink(o.directLink!);
  const filename = o.filename ?? defaultFilename(o);
  if (!filename) {
    throw new ParameterError("filename", `is required: the link ${describeLink(o.directLink!)} has no file name in its path`, "uploadFile");
  }
  const created = await client.call("PostDatasetFile", { databaseId: o.databaseId, datasetId: o.datasetId }, createRequest(o, filename), {
    signal: o.signal,
  });
  o.onSourceFile?.(created.id);
  return {
    sourceFileId: created.id,
    state: created.state,
    size: null,
    sha1: null,
    partCount: 0,
    partSize: null,
    partsSent: 0,
    partsReused: 0,
  };
}

/** The state a completion's refusal shows when the file is complete already (400 "... is PROCESSED, not UPLOADING"). */
function alreadyComplete(err: unknown): { state: string } | undefined {
  if (!(err instanceof ApiError) || err.status !== 400) return undefined;
  const m = /\bis (PROCESSING|PROCESSED)\b/.exec(`${err.title ?? ""} ${err.serviceMessage ?? ""}`);
  return m ? { state: m[1]! } : undefined;
}

/** True when an S3-style ETag (an MD5, maybe quoted) lets us compare a part's content, not just its size. */
function md5OfEtag(etag: string): string | undefined {
  const m = /^"?([0-9a-f]{32})"?$/i.exec(etag.trim());
  return m?.[1]?.toLowerCase();
}

/** Failures a new part URL may cure: an expired or refused URL, a storage error, a network failure. */
function freshUrlMayHelp(err: unknown): boolean {
  if (err instanceof ApiError) return err.status !== 400;
  return err instanceof NetworkError || err instanceof ResponseValidationError;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Part-size buffers, reused: at most `concurrency` exist, so memory is bounded whatever the file size. */
class BufferPool {
  private readonly free: Buffer[] = [];
  constructor(private readonly size: number) {}
  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(this.size);
  }
  give(buf: Buffer): void {
    this.free.push(buf);
  }
}

/** One upload from a local file. */
class PathUpload {
  private readonly databaseId: number;
  private readonly concurrency: number;
  private readonly partAttempts: number;
  private readonly controller = new AbortController();
  private readonly signal: AbortSignal;
  private sourceFileId = 0;
  private plan!: PartPlan;
  private partsDone = 0;
  private bytesDone = 0;
  private partsSent = 0;
  private partsReused = 0;

  constructor(
    private readonly client: ReviewAdminClient,
    private readonly o: UploadFileOptions,
  ) {
    this.databaseId = o.databaseId;
    this.concurrency = o.concurrency ?? DEFAULT_CONCURRENCY;
    this.partAttempts = o.partAttempts ?? DEFAULT_PART_ATTEMPTS;
    this.signal = o.signal ? AbortSignal.any([o.signal, this.controller.signal]) : this.controller.signal;
  }

  async run(): Promise<UploadResult> {
    const o = this.o;
    const file = path.resolve(o.path!);
    const filename = o.filename ?? defaultFilename(o)!;
    const fh = await fs.promises.open(file, "r").catch((err: NodeJS.ErrnoException) => {
      throw new ParameterError("path", err.code === "ENOENT" ? `no file at ${file}` : `cannot be opened: ${err.message}`, "uploadFile");
    });
    try {
      const st = await fh.stat();
      if (!st.isFile()) throw new ParameterError("path", `${file} is not a regular file`, "uploadFile");
      this.plan = planParts(st.size, o.partSize);

      // Before the source file exists, failures are thrown as they are: there is nothing to resume.
      let held = new Map<number, UploadedPart>();
      if (o.resume) {
        this.sourceFileId = o.resume.sourceFileId;
        const listed = await this.client.call(
          "GetSourceFileParts",
          { databaseId: this.databaseId, sourceFileId: this.sourceFileId },
          undefined,
          {
            signal: this.signal,
          },
        );
        held = new Map(listed.map((p) => [p.partNumber, p]));
        this.adoptEarlierPartSize(held);
      } else {
        const created = await this.client.call(
          "PostDatasetFile",
          { databaseId: this.databaseId, datasetId: o.datasetId },
          createRequest(o, filename),
          { signal: this.signal },
        );
        this.sourceFileId = created.id;
      }
      o.onSourceFile?.(this.sourceFileId);

      try {
        return await this.sendAndComplete(fh, held);
      } catch (err) {
        const cause = o.signal?.aborted ? o.signal.reason : err;
        throw new UploadError(
          `upload of source file ${this.sourceFileId} (${filename}) stopped with ${this.partsDone} of ${this.plan.partCount} parts on the service: ` +
            `${messageOf(cause)}; resume with {resume: {sourceFileId: ${this.sourceFileId}}}`,
          this.sourceFileId,
          this.partsDone,
          this.plan.partCount,
          { cause },
        );
      }
    } finally {
      await fh.close();
    }
  }

  /**
   * When resuming without an explicit partSize, keeps the part size of the earlier attempt if
   * part 1 shows one that differs (its parts then line up and are reused, not all sent again).
   */
  private adoptEarlierPartSize(held: Map<number, UploadedPart>): void {
    const first = held.get(1);
    if (this.o.partSize !== undefined || !first || first.size === this.plan.partSize) return;
    try {
      const earlier = planParts(this.plan.size, first.size);
      if (earlier.partCount > 1) this.plan = earlier;
    } catch {
      // Not a usable part size for this file: keep ours; mismatched parts are sent again.
    }
  }

  private progress(): void {
    try {
      this.o.onProgress?.({
        bytesSent: this.bytesDone,
        totalBytes: this.plan.size,
        partsDone: this.partsDone,
        partCount: this.plan.partCount,
      });
    } catch {
      // A failing progress callback must not fail the upload it reports on.
    }
  }

  private async sendAndComplete(fh: fs.promises.FileHandle, held: Map<number, UploadedPart>): Promise<UploadResult> {
    const { plan } = this;
    const extra = [...held.keys()].filter((n) => n > plan.partCount).sort((a, b) => a - b);
    if (extra.length > 0) {
      throw new Error(
        `the service holds part ${extra[0]} from an earlier attempt, beyond the ${plan.partCount} parts of this plan; ` +
          `resume with the part size of that attempt, or upload into a new source file`,
      );
    }
    const sha1 = createHash("sha1");
    const etags: string[] = new Array(plan.partCount);
    const pool = new BufferPool(Math.min(plan.partSize, plan.size));
    const inFlight = new Set<Promise<void>>();
    let failure: { err: unknown } | undefined;
    this.progress();

    for (let n = 1; n <= plan.partCount; n++) {
      // At most `concurrency` buffers: one per part in flight, the part being read included.
      while (inFlight.size >= this.concurrency && !failure) await Promise.race(inFlight);
      if (failure || this.signal.aborted) break;
      const { offset, length } = partRange(plan, n);
      const buf = pool.take();
      const body = buf.subarray(0, length);
      try {
        await this.readPart(fh, body, offset, sha1);
      } catch (err) {
        pool.give(buf);
        failure ??= { err };
        this.controller.abort(err);
        break;
      }
      const have = held.get(n);
      if (have && have.size === length && this.sameContent(have.etag, body)) {
        etags[n - 1] = have.etag;
        pool.give(buf);
        this.partDone(length, false);
        continue;
      }
      const task: Promise<void> = this.sendPart(n, body)
        .then(
          (etag) => {
            etags[n - 1] = etag;
            this.partDone(length, true);
          },
          (err) => {
            failure ??= { err };
            this.controller.abort(err);
          },
        )
        .finally(() => {
          pool.give(buf);
          inFlight.delete(task);
        });
      inFlight.add(task);
    }
    await Promise.allSettled([...inFlight]);
    // Parts still in flight when something failed end with the abort; report the first cause.
    if (failure) throw failure.err;
    if (this.signal.aborted) throw this.signal.reason;

    const digest = sha1.digest("hex");
    if (this.o.expectedSha1 !== undefined && digest !== this.o.expectedSha1.toLowerCase()) {
      throw new Error(
        `the file's SHA1 is ${digest}, not the planned ${this.o.expectedSha1.toLowerCase()}: it changed since it was planned; the upload was not completed`,
      );
    }
    const done = await this.complete(etags, digest);
    return {
      sourceFileId: this.sourceFileId,
      state: done.state,
      size: plan.size,
      sha1: digest,
      partCount: plan.partCount,
      partSize: plan.partSize,
      partsSent: this.partsSent,
      partsReused: this.partsReused,
    };
  }

  /**
   * up5, safe to repeat (see the file comment): a lost answer is followed by one more try, and an
   * answer saying the file is already past UPLOADING counts as completed.
   */
  private async complete(etags: string[], sha1: string): Promise<{ state: string }> {
    const send = () =>
      this.client.call(
        "PostSourceFile",
        { databaseId: this.databaseId, sourceFileId: this.sourceFileId },
        { etags, sha1 },
        { signal: this.signal },
      );
    try {
      return await send();
    } catch (err) {
      const done = alreadyComplete(err);
      if (done) return done;
      if (!answerLost(err) || this.signal.aborted) throw err;
      this.o.logger?.(`source file ${this.sourceFileId}: the answer to its completion was lost (${messageOf(err)}); asking again`);
      try {
        return await send();
      } catch (again) {
        const doneAgain = alreadyComplete(again);
        if (doneAgain) return doneAgain;
        throw again;
      }
    }
  }

  private partDone(length: number, sent: boolean): void {
    this.partsDone += 1;
    this.bytesDone += length;
    if (sent) this.partsSent += 1;
    else this.partsReused += 1;
    this.progress();
  }

  /** Fills `body` from the file at `offset`, updating the whole file's SHA1 chunk by chunk. */
  private async readPart(fh: fs.promises.FileHandle, body: Buffer, offset: number, sha1: ReturnType<typeof createHash>): Promise<void> {
    let filled = 0;
    while (filled < body.length) {
      if (this.signal.aborted) throw this.signal.reason;
      const want = Math.min(READ_CHUNK, body.length - filled);
      const { bytesRead } = await fh.read(body, filled, want, offset + filled);
      if (bytesRead === 0) throw new Error(`the file got shorter while it was being read (no bytes at offset ${offset + filled})`);
      sha1.update(body.subarray(filled, filled + bytesRead));
      filled += bytesRead;
    }
  }

  /** A part the service already holds is kept when its size matches and, for an MD5 ETag, its MD5 does too. */
  private sameContent(etag: string, body: Buffer): boolean {
    const md5 = md5OfEtag(etag);
    return md5 === undefined || createHash("md5").update(body).digest("hex") === md5;
  }

  /** up3 then the PUT; on failure, a new URL and another PUT, `partAttempts` tries in all. */
  private async sendPart(n: number, body: Buffer): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const { url } = await this.client.call(
        "PostSourceFilePart",
        { databaseId: this.databaseId, sourceFileId: this.sourceFileId, partNumber: n },
        undefined,
        { signal: this.signal },
      );
      try {
        const { etag } = await this.client.putPart(url, body, { signal: this.signal });
        return etag;
      } catch (err) {
        if (this.signal.aborted || err instanceof InsecureUrlError || attempt >= this.partAttempts || !freshUrlMayHelp(err)) throw err;
        const wait = backoffMs(attempt, { baseMs: 500, maxDelayMs: 5_000 });
        this.o.logger?.(
          `source file ${this.sourceFileId} part ${n}: ${messageOf(err)}; retrying with a new URL in ${wait} ms (try ${attempt + 1} of ${this.partAttempts})`,
        );
        await sleep(wait, this.signal);
      }
    }
  }
}
