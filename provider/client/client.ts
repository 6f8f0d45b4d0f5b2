/**
 * ReviewAdminClient: the one HTTP client of the admin API. It turns an operation id of the route
 * table plus parameters into a request, and the answer into validated `data` or one error.
 *
 * Order of work for every call: validate params and body (ParameterError, nothing sent), wait for
 * the key's pacer, send on the origin's shared pool, then either validate the answer or
 * apply the retry policy (retry.ts). The key lives in one private field and in the Authorization
 * header of each request, nowhere else.
 */
import { Readable } from "node:stream";
import { inspect } from "node:util";
import { FormData as UndiciFormData, type Pool } from "undici";
import { ParameterError } from "../../contract/parameterError";
import { parseOrThrow } from "../../contract/params";
import { type RouteDef } from "../../contract/routes";
import { BUILT_IN_ROUTES, buildPath, type RouteTable } from "../../contract/routing";
import type { BodyOf, DataOf, OperationId, ParamsOf } from "../../contract/types";
import { apiErrorOf, readPage } from "./answers";
import { ClientClosedError, ClientConfigError, NetworkError, ResponseValidationError, TimeoutError, type RequestContext } from "./errors";
import { type Clock } from "./clock";
import { pacerFor, type RequestPacer } from "./pacer";
import { PageBounds } from "./pagination";
import { backoffMs, DEFAULT_RETRY, isRetryableStatus, parseRetryAfter, sleep, type RetryPolicy } from "./retry";
import { checkUrl, insecureHttpHost, isInsecureHttp, keyFingerprint, KeyScrubber, REDACTED } from "./security";
import { routeTableFor } from "./routeTables";
import { acquirePool, releasePool, send, WireFailure, type WireBody, type WireResponse } from "./transport";

/** Settings of a client. Only baseUrl and apiKey are required. */
export interface ClientOptions {
  /** Base URL of the region's API, e.g. https://api.example.com. https only; plain http only for loopback hosts and insecureHttpHosts. */
  baseUrl: string;
  /** The API key, sent as `Authorization: Bearer <key>`. Never printed, logged or put in an error. */
  apiKey: string;
  /**
   * Requests per second for this key, shared by every client of the key in the process: the lowest
   * any of them asks for holds for all (a looser one is announced through `warn`). Default 25 (the service's limit).
   */
  requestsPerSecond?: number;
  /** Token bucket capacity: requests that may leave back to back. Default 1, i.e. evenly spaced (see pacer.ts). */
  burst?: number;
  /** Sends per call at most, retries included. Default 5. */
  maxAttempts?: number;
  /** Cap on the total time spent waiting between retries of one request. Default 60_000. */
  maxRetryWaitMs?: number;
  /**
   * Per request: total time for one attempt, the whole answer included (a trickling body too); a
   * part upload gets 1 s more per 64 KiB of the part. Also the longest silence. Default 30_000.
   */
  timeoutMs?: number;
  /**
   * Per call: total time, retries and waits included (time queued for the rate limit not); past
   * it the call fails at once. A part upload gets 1 s more per 64 KiB of the part. Default 60_000.
   */
  deadlineMs?: number;
  /** Largest answer read, in bytes; a larger one fails (ResponseTooLargeError) rather than fill memory. Default 64 MiB. */
  maxResponseBytes?: number;
  /** First backoff ceiling when no Retry-After is sent; doubles per retry. Default 200 (tests use less). */
  retryBaseMs?: number;
  /** Ceiling of any single backoff wait. Default 10_000. */
  retryMaxDelayMs?: number;
  /** Receives debug lines (one per request and per retry); never given the key. */
  logger?: (line: string) => void;
  /**
   * Hosts besides loopback the client may reach over plain http (`emulator`, `10.0.0.5`): the
   * explicit opt-in for a test emulator in another container. The key travels unencrypted to
   * them, so each use is announced through `warn`. Default none.
   */
  insecureHttpHosts?: readonly string[];
  /** Receives warnings (plain http through insecureHttpHosts, once per client and origin); never given the key. Default: stderr, after "warning: ". */
  warn?: (line: string) => void;
  /** Time source of pacing and retry waits. Default the system clock; tests pass a manual one. Clients share a pacer only on the same clock. */
  clock?: Clock;
  /**
   * The vendor's OpenAPI 3.x document (a JSON or YAML file, relative to the current directory):
   * each operation's method and path are taken from it, matched by operationId. Read once per
   * process; a document lacking an operation, or serving one in a way that cannot be mapped, is
   * a ClientConfigError naming every such operation. Default: the built-in routes.
   */
  openapi?: string;
}

/** Counters since construction: requests sent (retries included), retries, 429 answers, requests per operation. */
export interface ClientStats {
  requests: number;
  retries: number;
  throttled: number;
  byOperation: Record<string, number>;
}

/**
 * The element type of a paged operation: the array element for list routes (same as ItemOf),
 * and the event for the events shape `{data: {events: [...]}}`.
 */
export type PageItemOf<K extends OperationId> =
  DataOf<K> extends readonly (infer T)[] ? T : DataOf<K> extends { events: readonly (infer E)[] } ? E : never;

export interface CallOptions {
  /** Aborts the call at any point: waiting for the pacer, in flight, or between retries. */
  signal?: AbortSignal;
}

/** What one exchange (a request and its retries) needs to know. */
interface Exchange {
  ctx: RequestContext;
  pool: Pool;
  path: string;
  headers: Record<string, string>;
  /** Makes the body for one attempt (FormData and strings can be sent again; a stream cannot). */
  body?: () => WireBody;
  /** May be sent again after a 5xx or a connection failure. */
  idempotent: boolean;
  /** The body can be read only once (a stream): nothing is retried, not even a 429. */
  sendOnce: boolean;
  /** Waits for the key's pacer (API calls do; part uploads go to storage without the key). */
  paced: boolean;
  /** Longest time for one attempt, the answer read in full. */
  attemptMs: number;
  /** Longest time for the whole exchange, retries and waits included (time queued behind the pacer not). */
  callMs: number;
  /** For a part upload: its size, which adds to both limits (its time grows with size). */
  partBytes?: number;
  signal?: AbortSignal;
}

/**
 * Defaults (the README's Reliability section states them; a hung server fails a call within
 * deadlineMs). The largest answer the API can legitimately send is a page of 10,000 activity events
 * (E10 to E12) at a few hundred bytes each: 64 MiB leaves ample room and still bounds memory.
 */
export const CLIENT_DEFAULTS = {
  requestsPerSecond: 25,
  burst: 1,
  timeoutMs: 30_000,
  deadlineMs: 60_000,
  maxResponseBytes: 64 * 1024 * 1024,
};
const DEFAULTS = CLIENT_DEFAULTS;
/**
 * The slowest a part upload may go: its limits grow by 1 s per this many bytes. A 50 MB part then
 * has 13 minutes more, so a slow uplink passes and a host that trickles its answer still ends.
 */
const MIN_PART_BYTES_PER_SECOND = 64 * 1024;
const USER_AGENT = "pulumi-reviewadmin";
/** The page size the spec gives list routes when a route names no largest page. */
const DEFAULT_PAGE_SIZE = 100;
/** Operation name used in stats and errors for pre-authenticated part uploads. */
const PUT_PART = "putPart";

/**
 * Trims trailing slashes, and a trailing `prefix`: the segments every route path starts with
 * (`/v1` for the built-in routes), so a base URL copied with the version does not send `/v1/v1/...`.
 */
function normalizeBaseUrl(url: URL, prefix: string): string {
  const path = url.pathname.replace(/\/+$/, "");
  const trimmed = prefix !== "" && path.toLowerCase().endsWith(prefix.toLowerCase()) ? path.slice(0, -prefix.length) : path;
  return url.origin + trimmed;
}

/** The route table of the options: the built-in one, or the openapi document's (ClientConfigError when it cannot be used). */
function routesOf(opts: ClientOptions): RouteTable {
  if (opts.openapi === undefined) return BUILT_IN_ROUTES;
  if (typeof opts.openapi !== "string" || opts.openapi.trim() === "")
    throw new ClientConfigError("openapi must be the path of an OpenAPI document");
  try {
    return routeTableFor(opts.openapi);
  } catch (err) {
    throw new ClientConfigError(`openapi: ${(err as Error).message}`, { cause: err });
  }
}

function positive(name: string, value: number | undefined, fallback: number, integer = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new ClientConfigError(`${name} must be a positive ${integer ? "integer" : "number"}`);
  }
  return value;
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new ClientConfigError(`${name} must be a non-negative number`);
  }
  return value;
}

/** The insecureHttpHosts option, each host normalized (ClientConfigError for a bad one). */
function insecureHostsOf(opts: ClientOptions): string[] {
  const hosts = opts.insecureHttpHosts ?? [];
  if (!Array.isArray(hosts)) throw new ClientConfigError("insecureHttpHosts must be an array of host names");
  return hosts.map((h: unknown) => {
    try {
      return insecureHttpHost(String(h));
    } catch (err) {
      throw new ClientConfigError(`insecureHttpHosts: ${(err as Error).message}`);
    }
  });
}

function isFormDataLike(value: unknown): value is FormData {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === "FormData" &&
    typeof (value as FormData).entries === "function"
  );
}

/**
 * Copies any FormData (Node's global one or undici's) into a fresh undici FormData: undici's
 * request() only encodes its own class, and a fresh copy per attempt makes a retry re-encode it.
 */
function toUndiciFormData(form: FormData): UndiciFormData {
  const copy = new UndiciFormData();
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") copy.append(name, value);
    else copy.append(name, value, (value as File).name);
  }
  return copy;
}

/** The one HTTP client of the admin API; see ClientOptions and the method docs for the contract. */
export class ReviewAdminClient {
  /** The base URL every operation path is appended to, without a trailing slash. */
  readonly baseUrl: string;

  readonly #apiKey: string;
  /** Takes the key out of whatever an answer or a failure carries. */
  readonly #scrubber: KeyScrubber;
  readonly #base: URL;
  readonly #routes: RouteTable;
  readonly #pacer: RequestPacer;
  readonly #clock?: Clock;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #deadlineMs: number;
  readonly #maxResponseBytes: number;
  readonly #logger?: (line: string) => void;
  readonly #insecureHttpHosts: readonly string[];
  readonly #warn: (line: string) => void;
  /** Origins reached over plain http through insecureHttpHosts that have been announced. */
  readonly #announced = new Set<string>();
  /** Pools this client acquired, by origin: the base URL's, plus any part-upload hosts. */
  readonly #pools = new Map<string, Pool>();
  #closed = false;
  readonly #stats: ClientStats = { requests: 0, retries: 0, throttled: 0, byOperation: {} };

  /** Validates the options (throws ClientConfigError or InsecureUrlError) and joins the shared pool and pacer. */
  constructor(opts: ClientOptions) {
    if (!opts || typeof opts !== "object") throw new ClientConfigError("options are required");
    if (typeof opts.baseUrl !== "string" || opts.baseUrl === "") throw new ClientConfigError("baseUrl is required");
    // Visible ASCII only: anything else could not travel in a header, and a CR/LF would split it.
    if (typeof opts.apiKey !== "string" || !/^[\x21-\x7e]+$/.test(opts.apiKey)) {
      throw new ClientConfigError("apiKey is required and must be visible ASCII characters without spaces");
    }
    this.#scrubber = new KeyScrubber(opts.apiKey);
    // Every request's URL (and a server's log of it) would hold the key, as would every error's path.
    if (this.#scrubber.finds(opts.baseUrl)) {
      throw new ClientConfigError("baseUrl must not contain the API key: the key goes only in the Authorization header");
    }
    this.#insecureHttpHosts = insecureHostsOf(opts);
    if (opts.warn !== undefined && typeof opts.warn !== "function") throw new ClientConfigError("warn must be a function");
    this.#warn = opts.warn ?? ((line) => void process.stderr.write(`warning: ${line}\n`));
    this.#base = checkUrl(opts.baseUrl, "baseUrl", this.#insecureHttpHosts);
    if (this.#base.search || this.#base.hash) throw new ClientConfigError("baseUrl must not have a query or fragment");
    this.#announceInsecure(this.#base, "baseUrl");
    this.#routes = routesOf(opts);
    this.baseUrl = normalizeBaseUrl(this.#base, this.#routes.prefix);
    this.#apiKey = opts.apiKey;

    const rate = positive("requestsPerSecond", opts.requestsPerSecond, DEFAULTS.requestsPerSecond);
    const burst = positive("burst", opts.burst, DEFAULTS.burst, true);
    this.#retry = {
      maxAttempts: positive("maxAttempts", opts.maxAttempts, DEFAULT_RETRY.maxAttempts, true),
      maxRetryWaitMs: nonNegative("maxRetryWaitMs", opts.maxRetryWaitMs, DEFAULT_RETRY.maxRetryWaitMs),
      baseMs: nonNegative("retryBaseMs", opts.retryBaseMs, DEFAULT_RETRY.baseMs),
      maxDelayMs: nonNegative("retryMaxDelayMs", opts.retryMaxDelayMs, DEFAULT_RETRY.maxDelayMs),
    };
    this.#timeoutMs = positive("timeoutMs", opts.timeoutMs, DEFAULTS.timeoutMs);
    this.#deadlineMs = positive("deadlineMs", opts.deadlineMs, DEFAULTS.deadlineMs);
    this.#maxResponseBytes = positive("maxResponseBytes", opts.maxResponseBytes, DEFAULTS.maxResponseBytes, true);
    if (opts.logger !== undefined && typeof opts.logger !== "function") throw new ClientConfigError("logger must be a function");
    this.#logger = opts.logger;
    const clock = opts.clock;
    if (
      clock !== undefined &&
      !["now", "setTimer", "clearTimer"].every((m) => typeof (clock as unknown as Record<string, unknown>)?.[m] === "function")
    ) {
      throw new ClientConfigError("clock must have now(), setTimer() and clearTimer() functions");
    }
    this.#clock = clock;
    this.#pacer = pacerFor(keyFingerprint(opts.apiKey), rate, burst, clock);
    if (rate > this.#pacer.rate || burst > this.#pacer.capacity) this.#announceSharedPace(rate, burst);
    this.#poolFor(this.#base.origin);
  }

  /** A snapshot of the counters since construction. */
  get stats(): ClientStats {
    return { ...this.#stats, byOperation: { ...this.#stats.byOperation } };
  }

  /**
   * Calls one operation. Params (and the body, when the route takes one) are validated before
   * anything is sent: a ParameterError names the parameter. The answer is validated against the
   * route's data schema: a mismatch is a ResponseValidationError naming the field path. Other
   * failures: ApiError (non-2xx), NetworkError/TimeoutError, or the signal's abort reason.
   * Returns `data`; for envelope "none" routes, `data` if the body has one, else the parsed
   * body, else undefined.
   */
  async call<K extends OperationId>(op: K, params: ParamsOf<K>, body?: BodyOf<K>, opts?: CallOptions): Promise<DataOf<K>> {
    const route = this.#route(op);
    const path = this.#pathFor(route, params);
    const makeBody = this.#bodyFor(route, body);
    const res = await this.#exchange(this.#apiExchange(route, path, makeBody, opts?.signal));
    return readPage(route, this.#ctx(route, path), res, this.#scrubber).data as DataOf<K>;
  }

  /**
   * Iterates the items of a paged operation, following `links.next` until it is null, in pages of
   * the route's largest `limit` unless `params` gives one. Also reads the events shape
   * `{data: {events: [...]}}`, whose `links` may be absent (then it stops).
   * Refuses a `links.next` that points at another origin or holds the key (the key would go with
   * it), and one that comes back to a page already read; stops with a ResponseValidationError
   * after 10 empty pages in a row or past 5,000,000 items' worth of pages (pagination.ts).
   */
  async *paginate<K extends OperationId>(op: K, params: ParamsOf<K>, opts?: CallOptions): AsyncIterable<PageItemOf<K>> {
    const route = this.#route(op);
    if (route.pages === "none") {
      throw new TypeError(`${op} is not a paged operation`);
    }
    const limit = (params as { limit?: unknown }).limit ?? route.largestPage;
    let path: string | null = this.#pathFor(route, limit === undefined ? params : { ...params, limit });
    const bounds = new PageBounds(typeof limit === "number" ? limit : DEFAULT_PAGE_SIZE);
    while (path !== null) {
      const ctx = this.#ctx(route, path);
      const res = await this.#exchange(this.#apiExchange(route, path, undefined, opts?.signal));
      const page = readPage(route, ctx, res, this.#scrubber);
      const items = route.pages === "events" ? (page.data as { events: unknown[] }).events : (page.data as unknown[]);
      for (const item of items) yield item as PageItemOf<K>;
      path = page.next === null ? null : this.#nextPath(route, path, page.next);
      if (path !== null) bounds.follow(ctx, items.length, path);
    }
  }

  /** Collects every item of a paged operation (see paginate). */
  async listAll<K extends OperationId>(op: K, params: ParamsOf<K>, opts?: CallOptions): Promise<PageItemOf<K>[]> {
    const items: PageItemOf<K>[] = [];
    for await (const item of this.paginate(op, params, opts)) items.push(item);
    return items;
  }

  /**
   * PUTs raw bytes to a pre-authenticated part URL (not the base URL; no Authorization header)
   * and returns its ETag header. Same https/loopback rule as baseUrl. A Uint8Array body is
   * retried on 429, 5xx and connection failures (PUT is idempotent); a stream can be read only
   * once, so a stream body is sent once. A stream needs `size` (sent as Content-Length).
   * Errors show the URL's path only: its query is the pre-authentication.
   */
  async putPart(
    url: string,
    body: Uint8Array | NodeJS.ReadableStream,
    opts?: { signal?: AbortSignal; size?: number },
  ): Promise<{ etag: string }> {
    this.#assertOpen();
    const target = checkUrl(url, "part URL", this.#insecureHttpHosts);
    this.#announceInsecure(target, "part URL");
    let size: number;
    let makeBody: () => WireBody;
    if (body instanceof Uint8Array) {
      size = body.byteLength;
      if (opts?.size !== undefined && opts.size !== size) {
        throw new ParameterError("size", `must equal the body's length (${size})`, PUT_PART);
      }
      makeBody = () => body;
    } else if (body && typeof (body as NodeJS.ReadableStream).pipe === "function") {
      if (opts?.size === undefined || !Number.isInteger(opts.size) || opts.size < 0) {
        throw new ParameterError("size", "is required for a stream body: a non-negative integer byte count", PUT_PART);
      }
      size = opts.size;
      const stream = body instanceof Readable ? body : new Readable().wrap(body);
      makeBody = () => stream;
    } else {
      throw new ParameterError("body", "must be a Uint8Array (Buffer) or a readable stream", PUT_PART);
    }
    const allowance = Math.ceil((size * 1000) / MIN_PART_BYTES_PER_SECOND);
    const exchange: Exchange = {
      ctx: { operationId: PUT_PART, method: "PUT", path: target.pathname },
      pool: this.#poolFor(target.origin),
      path: target.pathname + target.search,
      headers: { "content-type": "application/octet-stream", "content-length": String(size), "user-agent": USER_AGENT },
      body: makeBody,
      idempotent: true,
      sendOnce: !(body instanceof Uint8Array),
      paced: false,
      attemptMs: this.#timeoutMs + allowance,
      callMs: this.#deadlineMs + allowance,
      partBytes: size,
      signal: opts?.signal,
    };
    const res = await this.#exchange(exchange);
    const etag = res.headers["etag"];
    if (typeof etag !== "string" || etag === "") {
      throw new ResponseValidationError(exchange.ctx, "headers.etag", "is missing: a part upload must answer with an ETag header");
    }
    return { etag };
  }

  /** Releases this client's share of the pools and drops it from getClient's cache; later calls throw ClientClosedError. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    forgetClient(this);
    const releases = [...this.#pools].map(([origin, pool]) => releasePool(origin, pool));
    this.#pools.clear();
    await Promise.all(releases);
  }

  /** What JSON.stringify shows: settings and counters, never the key. */
  toJSON(): Record<string, unknown> {
    return {
      baseUrl: this.baseUrl,
      apiKey: REDACTED,
      requestsPerSecond: this.#pacer.rate,
      burst: this.#pacer.capacity,
      maxAttempts: this.#retry.maxAttempts,
      timeoutMs: this.#timeoutMs,
      deadlineMs: this.#deadlineMs,
      ...(this.#insecureHttpHosts.length > 0 ? { insecureHttpHosts: [...this.#insecureHttpHosts] } : {}),
      ...(this.#routes !== BUILT_IN_ROUTES ? { openapi: this.#routes.source } : {}),
      stats: this.stats,
      closed: this.#closed,
    };
  }

  /** What util.inspect and console.log show: the same as toJSON. */
  [inspect.custom](): string {
    return `ReviewAdminClient ${inspect(this.toJSON(), { depth: 3 })}`;
  }

  /** String(client): the base URL only. */
  toString(): string {
    return `ReviewAdminClient(${this.baseUrl})`;
  }

  // ---- building requests -------------------------------------------------------------------

  /** Says, once per origin, that this client talks plain http to a host that is not loopback (allowed by insecureHttpHosts). */
  #announceInsecure(url: URL, what: string): void {
    if (!isInsecureHttp(url) || this.#announced.has(url.origin)) return;
    this.#announced.add(url.origin);
    const carried = what === "baseUrl" ? "the API key and every request" : "part uploads";
    try {
      this.#warn(
        `reviewadmin: plain http to ${url.origin} (${what}), allowed by the insecureHttpHosts setting: ` +
          `${carried} travel unencrypted. Use it for a test emulator only.`,
      );
    } catch {
      // A failing warn must not fail the client it describes.
    }
  }

  /** Says that this client's looser rate or burst gives way to the stricter one the key's shared pacer already keeps. */
  #announceSharedPace(rate: number, burst: number): void {
    try {
      this.#warn(
        `reviewadmin: requestsPerSecond ${rate} (burst ${burst}) is not used: another client of this API key in this process ` +
          `asked for ${this.#pacer.rate} (burst ${this.#pacer.capacity}), and every client of a key keeps to the lowest asked for.`,
      );
    } catch {
      // A failing warn must not fail the client it describes.
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new ClientClosedError(`the client for ${this.baseUrl} is closed`);
  }

  #route(op: OperationId): RouteDef {
    this.#assertOpen();
    const route = this.#routes.route(String(op));
    if (!route) throw new TypeError(`unknown operation id '${String(op)}'`);
    return route;
  }

  /** Validates params with the route's schema and returns the full path (base path included) and query. */
  #pathFor(route: RouteDef, params: unknown): string {
    const parsed = parseOrThrow(route.params, params ?? {}, route.operationId) as Record<string, unknown>;
    return new URL(this.baseUrl).pathname.replace(/\/+$/, "") + buildPath(route, parsed);
  }

  /** Validates the body against the route; returns a maker of one attempt's body, or undefined. */
  #bodyFor(route: RouteDef, body: unknown): (() => WireBody) | undefined {
    if (route.body === undefined) {
      if (body !== undefined) throw new ParameterError("body", "must be absent: this operation takes no body", route.operationId);
      return undefined;
    }
    if (route.body === "multipart") {
      if (!isFormDataLike(body) || !body.has("file")) {
        throw new ParameterError("body", "must be a FormData with a 'file' field holding the CSV", route.operationId);
      }
      return () => toUndiciFormData(body);
    }
    if (body === undefined) throw new ParameterError("body", "is required", route.operationId);
    const json = JSON.stringify(parseOrThrow(route.body, body, route.operationId, "body"));
    return () => json;
  }

  #apiExchange(route: RouteDef, path: string, body: (() => WireBody) | undefined, signal?: AbortSignal): Exchange {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: "application/json",
      "user-agent": USER_AGENT,
    };
    // FormData sets its own multipart content type with the boundary.
    if (body && route.body !== "multipart") headers["content-type"] = "application/json";
    return {
      ctx: this.#ctx(route, path),
      pool: this.#poolFor(this.#base.origin),
      path,
      headers,
      body,
      idempotent: route.idempotent,
      sendOnce: false,
      paced: true,
      attemptMs: this.#timeoutMs,
      callMs: this.#deadlineMs,
      signal,
    };
  }

  #ctx(route: RouteDef, path: string): RequestContext {
    return { operationId: route.operationId, method: route.method, path, pathTemplate: route.path };
  }

  /** The path of a links.next URL, if it is on this client's origin; anything else is refused. */
  #nextPath(route: RouteDef, current: string, next: string): string {
    let url: URL;
    try {
      url = new URL(next, this.#base);
    } catch {
      throw new ResponseValidationError(this.#ctx(route, current), "links.next", "is not a URL");
    }
    if (url.origin !== this.#base.origin) {
      throw new ResponseValidationError(
        this.#ctx(route, current),
        "links.next",
        `points at another origin (${url.origin}); refusing to send the API key there`,
      );
    }
    return url.pathname + url.search;
  }

  #poolFor(origin: string): Pool {
    let pool = this.#pools.get(origin);
    if (!pool) {
      pool = acquirePool(origin);
      this.#pools.set(origin, pool);
    }
    return pool;
  }

  // ---- sending, retrying ---------------------------------------------------------------------

  /** Sends until a 2xx (returned), a final failure (thrown), or a cap is reached (the last failure thrown). */
  async #exchange(ex: Exchange): Promise<WireResponse> {
    const { ctx, signal } = ex;
    const label = `${ctx.operationId} ${ctx.method} ${ctx.path}`;
    let waited = 0;
    const callStarted = performance.now();
    // Time queued behind this key's own pacer is not the service being slow (4,000 deletes in one
    // run queue up to 160 s at 25 requests/s), so the deadline does not count it.
    let queuedMs = 0;
    // Every exchange ends by its deadline, whatever the retries.
    const remaining = () => ex.callMs - (performance.now() - callStarted - queuedMs);
    for (let attempt = 1; ; attempt++) {
      this.#assertOpen();
      if (ex.paced) {
        const queued = performance.now();
        await this.#pacer.acquire(signal);
        queuedMs += performance.now() - queued;
      } else if (signal?.aborted) throw signal.reason;
      this.#count(ctx.operationId);

      const started = performance.now();
      let res: WireResponse | undefined;
      let failure: WireFailure | undefined;
      const attemptMs = Math.max(1, Math.ceil(Math.min(ex.attemptMs, remaining())));
      try {
        res = await send(ex.pool, {
          path: ex.path,
          method: ctx.method,
          headers: ex.headers,
          body: ex.body?.(),
          signal,
          deadlineMs: attemptMs,
          idleTimeoutMs: this.#timeoutMs,
          maxResponseBytes: this.#maxResponseBytes,
        });
      } catch (err) {
        if (!(err instanceof WireFailure)) throw err;
        failure = err;
      }
      const took = Math.round(performance.now() - started);

      if (res && res.status >= 200 && res.status < 300) {
        this.#log(`${label} -> ${res.status} in ${took} ms (attempt ${attempt})`);
        return res;
      }

      const outcome = res ? String(res.status) : failure!.code;
      if (res?.status === 429) this.#stats.throttled += 1;
      const retryable = !ex.sendOnce && (res ? isRetryableStatus(res.status, ex.idempotent) : ex.idempotent && !failure!.final);
      const retryAfter = res ? parseRetryAfter(res.headers["retry-after"]) : undefined;
      const wait = retryAfter ?? backoffMs(attempt, this.#retry);
      const giveUpBecause = !retryable
        ? "final"
        : attempt >= this.#retry.maxAttempts
          ? "attempt cap"
          : waited + wait > this.#retry.maxRetryWaitMs
            ? "wait cap"
            : wait >= remaining()
              ? "deadline"
              : undefined;
      if (giveUpBecause) {
        this.#log(`${label} -> ${outcome} in ${took} ms (attempt ${attempt}, ${giveUpBecause})`);
        throw res ? apiErrorOf(ctx, res, attempt, this.#scrubber) : this.#networkError(ex, failure!, attempt, attemptMs < ex.attemptMs);
      }

      // A 429's Retry-After is about the key, not this request: hold every request of the key.
      if (res?.status === 429 && retryAfter !== undefined) this.#pacer.pauseFor(retryAfter);
      this.#log(`${label} -> ${outcome} in ${took} ms (attempt ${attempt}); retrying in ${wait} ms`);
      this.#stats.retries += 1;
      waited += wait;
      await sleep(wait, signal, this.#clock);
    }
  }

  #count(operationId: string): void {
    this.#stats.requests += 1;
    this.#stats.byOperation[operationId] = (this.#stats.byOperation[operationId] ?? 0) + 1;
  }

  #log(line: string): void {
    if (!this.#logger) return;
    try {
      this.#logger(this.#scrubber.text(`reviewadmin: ${line}`));
    } catch {
      // A failing logger must not fail the request it describes.
    }
  }

  /** Which limit ended an exchange that timed out, and which setting raises it. */
  #timeoutText(ex: Exchange, failure: WireFailure, byDeadline: boolean): string {
    if (byDeadline) {
      return `no complete answer within the call's deadline of ${ex.callMs} ms, retries included; reviewadmin:deadlineSeconds (the client's deadlineMs) raises it`;
    }
    const raise = "reviewadmin:requestTimeoutSeconds (the client's timeoutMs) raises it";
    // undici's own timeouts are silences; UND_ERR_TIMEOUT is the attempt's total time running out.
    if (failure.code !== "UND_ERR_TIMEOUT") return `no data for ${this.#timeoutMs} ms; ${raise}`;
    const part = ex.partBytes === undefined ? "" : ` for a part of ${ex.partBytes} bytes (1 s per 64 KiB added)`;
    return `no complete answer within ${ex.attemptMs} ms${part}; ${raise}`;
  }

  /** `byDeadline`: the attempt was cut short by the exchange's deadline rather than by the request timeout. */
  #networkError(ex: Exchange, failure: WireFailure, attempts: number, byDeadline: boolean): NetworkError {
    const { ctx } = ex;
    if (failure.timedOut)
      return new TimeoutError(ctx, byDeadline ? ex.callMs : ex.attemptMs, attempts, this.#timeoutText(ex, failure, byDeadline));
    const message = this.#scrubber.text(failure.message);
    const cause = Object.assign(new Error(message), { name: "WireFailure", code: failure.code });
    return new NetworkError(ctx, failure.code, message, attempts, cause);
  }
}

// ---- one client per (base URL, key, rate) -------------------------------------------------------

/** Cached clients by base URL, key fingerprint and rate settings. */
const clients = new Map<string, ReviewAdminClient>();

function cacheKey(opts: ClientOptions): string {
  const insecure = insecureHostsOf(opts);
  const routes = routesOf(opts);
  const base = normalizeBaseUrl(checkUrl(opts.baseUrl, "baseUrl", insecure), routes.prefix);
  const key = typeof opts.apiKey === "string" ? keyFingerprint(opts.apiKey) : "";
  // A different route table is a different client: the same key and base URL, other paths.
  return [
    base,
    key,
    opts.requestsPerSecond ?? DEFAULTS.requestsPerSecond,
    opts.burst ?? DEFAULTS.burst,
    [...insecure].sort().join(","),
    routes.source,
  ].join("\n");
}

/**
 * The process-wide client for (baseUrl, apiKey, requestsPerSecond, burst, insecureHttpHosts, openapi), created on first use
 * so every resource in a process shares one pool and one pacer. Other options are taken
 * from the first call. A closed client is replaced by a new one.
 */
export function getClient(opts: ClientOptions): ReviewAdminClient {
  const key = cacheKey(opts);
  let client = clients.get(key);
  if (!client) {
    client = new ReviewAdminClient(opts);
    clients.set(key, client);
  }
  return client;
}

/** Drops a closing client from the cache. */
function forgetClient(client: ReviewAdminClient): void {
  for (const [key, cached] of clients) if (cached === client) clients.delete(key);
}
