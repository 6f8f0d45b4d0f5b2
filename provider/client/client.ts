/**
 * ReviewAdminClient: the one HTTP client of the admin API. It turns an operation id of the route
 * table plus parameters into a request, and the answer into validated `data` or one error.
 *
 * The work is in three parts: build (an operation id and params become a path, headers and a
 * body; nothing is sent if they are wrong: ParameterError), call (one exchange, exchange.ts:
 * pacing, sending, the retry policy of retry.ts, the deadline), and paginate (links.next
 * followed within the bounds of pagination.ts). Options are checked in options.ts. The key
 * lives in the client's private settings and in the Authorization header of each request,
 * nowhere else.
 */
import { Readable } from "node:stream";
import { inspect } from "node:util";
import type { FormData as UndiciFormData, Pool } from "undici";
import { ParameterError } from "../../contract/parameterError";
import { parseOrThrow } from "../../contract/params";
import { type RouteDef } from "../../contract/routes";
import { BUILT_IN_ROUTES, buildPath } from "../../contract/routing";
import type { BodyOf, DataOf, OperationId, ParamsOf } from "../../contract/types";
import { readPage } from "./answers";
import { systemClock } from "./clock";
import { ClientClosedError, ResponseValidationError, type RequestContext } from "./errors";
import { exchange, type Exchange, type ExchangeHost } from "./exchange";
import { clientCacheKey, resolveOptions, type ClientOptions, type ResolvedOptions } from "./options";
import { pacerFor, type RequestPacer } from "./pacer";
import { PageBounds } from "./pagination";
import { checkUrl, isInsecureHttp, keyFingerprint, REDACTED } from "./security";
import { acquirePool, releasePool, undici, type WireBody, type WireResponse } from "./transport";

/** Counters since construction: requests sent (retries included), retries, 429 answers, requests per operation. */
export interface ClientStats {
  requests: number;
  retries: number;
  throttled: number;
  byOperation: Record<string, number>;
}

/** One 2xx answer a client read: the operation, the path asked (query included) and its data (a page's items for a paged read). */
export interface AnswerRead {
  operationId: string;
  path: string;
  data: unknown;
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
  const copy = new (undici().FormData)();
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

  /** The options, checked and with defaults filled in; holds the key, so it stays private. */
  readonly #o: ResolvedOptions;
  readonly #pacer: RequestPacer;
  /** What each exchange takes from this client (exchange.ts). */
  readonly #host: ExchangeHost;
  /** Origins reached over plain http through insecureHttpHosts that have been announced. */
  readonly #announced = new Set<string>();
  /** Pools this client acquired, by origin: the base URL's, plus any part-upload hosts. */
  readonly #pools = new Map<string, Pool>();
  #closed = false;
  /** The service's clock minus the machine's, from the last API answer's Date header (serviceNow). */
  #serviceOffsetMs: number | undefined;
  readonly #stats: ClientStats = { requests: 0, retries: 0, throttled: 0, byOperation: {} };
  readonly #readers = new Set<(answer: AnswerRead) => void>();

  /** Validates the options (throws ClientConfigError or InsecureUrlError) and joins the shared pacer; the shared pool at the first request. */
  constructor(opts: ClientOptions) {
    const o = resolveOptions(opts);
    this.#o = o;
    this.baseUrl = o.baseUrl;
    this.#announceInsecure(o.base, "baseUrl");
    this.#pacer = pacerFor(keyFingerprint(o.apiKey), o.rate, o.burst, o.clock);
    if (o.rate > this.#pacer.rate || o.burst > this.#pacer.capacity) this.#announceSharedPace(o.rate, o.burst);
    this.#host = {
      retry: o.retry,
      timeoutMs: o.timeoutMs,
      maxResponseBytes: o.maxResponseBytes,
      clock: o.clock ?? systemClock,
      pacer: this.#pacer,
      scrubber: o.scrubber,
      assertOpen: () => this.#assertOpen(),
      log: (line) => this.#log(line),
      tally: (event, operationId) => this.#tally(event, operationId),
    };
    // The base URL's pool is joined at the first request: a run that sends none never loads undici (transport.ts).
  }

  /**
   * Unix milliseconds now by the service's clock: the Date header of the last API answer, carried
   * forward on the machine's clock; undefined before any answer (or without a Date header).
   */
  serviceNow(): number | undefined {
    return this.#serviceOffsetMs === undefined ? undefined : Date.now() + this.#serviceOffsetMs;
  }

  #sawAnswer(res: WireResponse): void {
    const date = res.headers["date"];
    const ms = typeof date === "string" ? Date.parse(date) : NaN;
    if (Number.isFinite(ms)) this.#serviceOffsetMs = ms - Date.now();
  }

  /**
   * Calls `reader` with each 2xx answer read from now on, until the returned function is called:
   * the review's evidence manifest lists every page it read, with the items each one held.
   */
  onRead(reader: (answer: AnswerRead) => void): () => void {
    this.#readers.add(reader);
    return () => void this.#readers.delete(reader);
  }

  #read(operationId: string, path: string, data: unknown): void {
    for (const reader of this.#readers) reader({ operationId, path, data });
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
    const res = await exchange(this.#apiExchange(route, path, makeBody, opts?.signal), this.#host);
    this.#sawAnswer(res);
    const data = readPage(route, this.#ctx(route, path), res, this.#o.scrubber).data as DataOf<K>;
    this.#read(op, path, data);
    return data;
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
      const res = await exchange(this.#apiExchange(route, path, undefined, opts?.signal), this.#host);
      this.#sawAnswer(res);
      const page = readPage(route, ctx, res, this.#o.scrubber);
      const items = route.pages === "events" ? (page.data as { events: unknown[] }).events : (page.data as unknown[]);
      this.#read(op, path, items);
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
    const target = checkUrl(url, "part URL", this.#o.insecureHttpHosts);
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
    const part: Exchange = {
      ctx: { operationId: PUT_PART, method: "PUT", path: target.pathname },
      pool: this.#poolFor(target.origin),
      path: target.pathname + target.search,
      headers: { "content-type": "application/octet-stream", "content-length": String(size), "user-agent": USER_AGENT },
      body: makeBody,
      idempotent: true,
      sendOnce: !(body instanceof Uint8Array),
      paced: false,
      attemptMs: this.#o.timeoutMs + allowance,
      callMs: this.#o.deadlineMs + allowance,
      partBytes: size,
      signal: opts?.signal,
    };
    const res = await exchange(part, this.#host);
    const etag = res.headers["etag"];
    if (typeof etag !== "string" || etag === "") {
      throw new ResponseValidationError(part.ctx, "headers.etag", "is missing: a part upload must answer with an ETag header");
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
      maxAttempts: this.#o.retry.maxAttempts,
      timeoutMs: this.#o.timeoutMs,
      deadlineMs: this.#o.deadlineMs,
      ...(this.#o.insecureHttpHosts.length > 0 ? { insecureHttpHosts: [...this.#o.insecureHttpHosts] } : {}),
      ...(this.#o.routes !== BUILT_IN_ROUTES ? { openapi: this.#o.routes.source } : {}),
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
      this.#o.warn(
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
      this.#o.warn(
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
    const route = this.#o.routes.route(String(op));
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
      authorization: `Bearer ${this.#o.apiKey}`,
      accept: "application/json",
      "user-agent": USER_AGENT,
    };
    // FormData sets its own multipart content type with the boundary.
    if (body && route.body !== "multipart") headers["content-type"] = "application/json";
    return {
      ctx: this.#ctx(route, path),
      pool: this.#poolFor(this.#o.base.origin),
      path,
      headers,
      body,
      idempotent: route.idempotent,
      sendOnce: false,
      paced: true,
      attemptMs: this.#o.timeoutMs,
      callMs: this.#o.deadlineMs,
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
      url = new URL(next, this.#o.base);
    } catch {
      throw new ResponseValidationError(this.#ctx(route, current), "links.next", "is not a URL");
    }
    if (url.origin !== this.#o.base.origin) {
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

  // ---- counting, logging ---------------------------------------------------------------------

  #tally(event: "request" | "retry" | "throttled", operationId: string): void {
    if (event === "retry") this.#stats.retries += 1;
    else if (event === "throttled") this.#stats.throttled += 1;
    else {
      this.#stats.requests += 1;
      this.#stats.byOperation[operationId] = (this.#stats.byOperation[operationId] ?? 0) + 1;
    }
  }

  #log(line: string): void {
    if (!this.#o.logger) return;
    try {
      this.#o.logger(this.#o.scrubber.text(`reviewadmin: ${line}`));
    } catch {
      // A failing logger must not fail the request it describes.
    }
  }
}

// ---- one client per (base URL, key, rate) -------------------------------------------------------

/** Cached clients by clientCacheKey: base URL, key fingerprint and rate settings. */
// eslint-disable-next-line no-restricted-syntax -- process-wide: a program's data sources and scripts share one client per (base URL, key, rate); a closed one leaves.
const clients = new Map<string, ReviewAdminClient>();

/**
 * The process-wide client for (baseUrl, apiKey, requestsPerSecond, burst, insecureHttpHosts, openapi), created on first use
 * so every resource in a process shares one pool and one pacer. Other options are taken
 * from the first call. A closed client is replaced by a new one.
 */
export function getClient(opts: ClientOptions): ReviewAdminClient {
  const key = clientCacheKey(opts);
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
