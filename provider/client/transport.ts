/**
 * The wire: one undici Pool per origin for the whole process, and one function that sends one
 * request and reads the whole answer. It knows nothing of routes, retries or errors of the API;
 * it reports either an answer (any status) or a WireFailure.
 */
import { Readable } from "node:stream";
import type { FormData as UndiciFormData, Pool } from "undici";
import type { IncomingHttpHeaders } from "undici/types/header";

// eslint-disable-next-line no-restricted-syntax -- process-wide: a module loaded once, at the first request.
let undiciModule: typeof import("undici") | undefined;

/**
 * undici, loaded when first needed, not with this module: its load is about 130 ms of the start
 * of every process that imports the package (a program, the dynamic-provider plugin), and a run
 * that sends nothing, such as a no-change `up`, never needs it (docs/engine.md).
 */
export function undici(): typeof import("undici") {
  return (undiciModule ??= require("undici") as typeof import("undici"));
}

/** A pool and how many clients use it; closed when the last one lets go. */
interface SharedPool {
  pool: Pool;
  users: number;
}

/** Process-wide: every client of an origin shares its connections (keep-alive, one socket budget). */
// eslint-disable-next-line no-restricted-syntax -- process-wide: connections per origin, closed when the last client lets go.
const pools = new Map<string, SharedPool>();

/** The shared pool for `origin` (scheme://host:port), created on first use; pair with releasePool. */
export function acquirePool(origin: string): Pool {
  let shared = pools.get(origin);
  if (!shared || shared.pool.closed) {
    shared = { pool: new (undici().Pool)(origin), users: 0 };
    pools.set(origin, shared);
  }
  shared.users += 1;
  return shared.pool;
}

/** Lets go of a pool from acquirePool; the last user closes it (after its in-flight requests finish). */
export async function releasePool(origin: string, pool: Pool): Promise<void> {
  const shared = pools.get(origin);
  if (!shared || shared.pool !== pool) return;
  shared.users -= 1;
  if (shared.users > 0) return;
  pools.delete(origin);
  await pool.close();
}

/** A request body as the client hands it over; FormData is re-encoded by undici (multipart). */
export type WireBody = string | Uint8Array | Readable | UndiciFormData;

export interface WireRequest {
  readonly path: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: WireBody;
  /** The caller's signal: its abort rejects with its reason. */
  readonly signal?: AbortSignal;
  /**
   * Total time for this one attempt, headers and body. Not the call's deadline (the client's
   * deadlineMs, which spans every attempt of a call): the attempt's share of what is left of it.
   */
  readonly attemptMs?: number;
  /** Longest silence while sending or receiving (part uploads, whose total time grows with size). */
  readonly idleTimeoutMs: number;
  /** Largest answer read; past it the attempt fails with a final WireFailure (RESPONSE_TOO_LARGE). */
  readonly maxResponseBytes?: number;
}

/** One answer, body read in full as text. */
export interface WireResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/**
 * No usable answer: `code` is the low-level code (ECONNRESET, UND_ERR_SOCKET, ...); `timedOut`
 * when a time limit of the attempt ran out; `final` when sending again cannot help (an answer
 * over the size cap).
 */
export class WireFailure extends Error {
  override readonly name = "WireFailure";
  constructor(
    readonly code: string,
    message: string,
    readonly timedOut: boolean,
    readonly final = false,
  ) {
    super(message);
  }
}

/** The code of an answer larger than WireRequest.maxResponseBytes. */
export const RESPONSE_TOO_LARGE = "RA_RESPONSE_TOO_LARGE";

/** Reads a body as text, refusing (and dropping the connection) past `max` bytes. */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      throw new WireFailure(
        RESPONSE_TOO_LARGE,
        `the answer is larger than ${max} bytes, more than the API ever sends; it was not read`,
        false,
        true,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** undici codes that mean "the request was built wrong", not "the network failed": never retried. */
const PROGRAMMING_ERRORS = new Set([
  "UND_ERR_INVALID_ARG",
  "UND_ERR_INVALID_RETURN_VALUE",
  "UND_ERR_NOT_SUPPORTED",
  "UND_ERR_REQ_CONTENT_LENGTH_MISMATCH",
]);
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);

/**
 * Sends one request on `pool` and reads the whole answer. Rejects with the caller's abort reason
 * when `signal` aborts, with a WireFailure when the network fails or attemptMs passes, and
 * rethrows anything else (a bug in how the request was built).
 */
export async function send(pool: Pool, req: WireRequest): Promise<WireResponse> {
  const attemptEnd = req.attemptMs !== undefined ? AbortSignal.timeout(req.attemptMs) : undefined;
  const signals = [req.signal, attemptEnd].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  try {
    const res = await pool.request({
      path: req.path,
      method: req.method as "GET",
      headers: req.headers,
      body: req.body,
      signal,
      headersTimeout: req.idleTimeoutMs,
      bodyTimeout: req.idleTimeoutMs,
    });
    const declared = Number(res.headers["content-length"]);
    const max = req.maxResponseBytes ?? Infinity;
    if (declared > max) {
      res.body.destroy();
      throw new WireFailure(
        RESPONSE_TOO_LARGE,
        `the answer is ${declared} bytes, more than the API ever sends (at most ${max}); it was not read`,
        false,
        true,
      );
    }
    const text = Number.isFinite(max) ? await readCapped(res.body, max) : await res.body.text();
    return { status: res.statusCode, headers: res.headers, text };
  } catch (err) {
    if (err instanceof WireFailure) throw err;
    if (req.signal?.aborted) throw req.signal.reason;
    if (attemptEnd?.aborted) throw new WireFailure("UND_ERR_TIMEOUT", `no complete answer within ${req.attemptMs} ms`, true);
    const code = typeof (err as { code?: unknown })?.code === "string" ? (err as { code: string }).code : "UND_ERR";
    if (PROGRAMMING_ERRORS.has(code) || !(err instanceof Error)) throw err;
    throw new WireFailure(code, err.message, TIMEOUT_CODES.has(code));
  }
}
