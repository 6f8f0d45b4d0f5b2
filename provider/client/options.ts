/**
 * A client's options: what each one means, its default, and the one check that turns what a
 * caller passed into settings the client can trust (ClientConfigError or InsecureUrlError
 * otherwise, before anything is sent). getClient's cache key is read from the same rules, so two
 * option objects that resolve alike share one client.
 */
import { BUILT_IN_ROUTES, type RouteTable } from "../../contract/routing";
import { type Clock } from "./clock";
import { ClientConfigError } from "./errors";
import { DEFAULT_RETRY, type RetryPolicy } from "./retry";
import { routeTableFor } from "./routeTables";
import { checkUrl, insecureHttpHost, keyFingerprint, KeyScrubber } from "./security";

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
   * it the call fails at once. A part upload gets 1 s more per 64 KiB of the part. Measured on
   * `clock`. Default 60_000.
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
  /**
   * Time source of pacing, retry waits and the call's deadline. Default the system clock; tests
   * pass a manual one. Clients share a pacer only on the same clock.
   */
  clock?: Clock;
  /**
   * The vendor's OpenAPI 3.x document (a JSON or YAML file, relative to the current directory):
   * each operation's method and path are taken from it, matched by operationId. Read once per
   * process; a document lacking an operation, or serving one in a way that cannot be mapped, is
   * a ClientConfigError naming every such operation. Default: the built-in routes.
   */
  openapi?: string;
}

/**
 * Defaults (docs/configuration.md's Reliability section states them; a hung server fails a call within
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

/** ClientOptions checked, normalized and with every default filled in. */
export interface ResolvedOptions {
  readonly apiKey: string;
  /** Finds the key (or its secret) in text; made once, since it holds the key. */
  readonly scrubber: KeyScrubber;
  /** The base URL as given, parsed and checked against the transport rule. */
  readonly base: URL;
  /** The base URL without trailing slashes or the routes' prefix: what every path is appended to. */
  readonly baseUrl: string;
  readonly routes: RouteTable;
  readonly insecureHttpHosts: readonly string[];
  readonly rate: number;
  readonly burst: number;
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  readonly maxResponseBytes: number;
  readonly logger?: (line: string) => void;
  readonly warn: (line: string) => void;
  readonly clock?: Clock;
}

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

/** A callback option: undefined, or a function (ClientConfigError otherwise). */
function callback<F>(name: string, value: F | undefined): F | undefined {
  if (value !== undefined && typeof value !== "function") throw new ClientConfigError(`${name} must be a function`);
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

function clockOf(opts: ClientOptions): Clock | undefined {
  const clock = opts.clock;
  if (
    clock !== undefined &&
    !["now", "setTimer", "clearTimer"].every((m) => typeof (clock as unknown as Record<string, unknown>)?.[m] === "function")
  ) {
    throw new ClientConfigError("clock must have now(), setTimer() and clearTimer() functions");
  }
  return clock;
}

/** Checks every option and fills in the defaults; throws ClientConfigError or InsecureUrlError naming the first wrong one. */
export function resolveOptions(opts: ClientOptions): ResolvedOptions {
  if (!opts || typeof opts !== "object") throw new ClientConfigError("options are required");
  if (typeof opts.baseUrl !== "string" || opts.baseUrl === "") throw new ClientConfigError("baseUrl is required");
  // Visible ASCII only: anything else could not travel in a header, and a CR/LF would split it.
  if (typeof opts.apiKey !== "string" || !/^[\x21-\x7e]+$/.test(opts.apiKey)) {
    throw new ClientConfigError("apiKey is required and must be visible ASCII characters without spaces");
  }
  const scrubber = new KeyScrubber(opts.apiKey);
  // Every request's URL (and a server's log of it) would hold the key, as would every error's path.
  if (scrubber.finds(opts.baseUrl)) {
    throw new ClientConfigError("baseUrl must not contain the API key: the key goes only in the Authorization header");
  }
  const insecureHttpHosts = insecureHostsOf(opts);
  const warn = callback("warn", opts.warn) ?? ((line: string) => void process.stderr.write(`warning: ${line}\n`));
  const base = checkUrl(opts.baseUrl, "baseUrl", insecureHttpHosts);
  if (base.search || base.hash) throw new ClientConfigError("baseUrl must not have a query or fragment");
  const routes = routesOf(opts);
  return {
    apiKey: opts.apiKey,
    scrubber,
    base,
    baseUrl: normalizeBaseUrl(base, routes.prefix),
    routes,
    insecureHttpHosts,
    warn,
    rate: positive("requestsPerSecond", opts.requestsPerSecond, CLIENT_DEFAULTS.requestsPerSecond),
    burst: positive("burst", opts.burst, CLIENT_DEFAULTS.burst, true),
    retry: {
      maxAttempts: positive("maxAttempts", opts.maxAttempts, DEFAULT_RETRY.maxAttempts, true),
      maxRetryWaitMs: nonNegative("maxRetryWaitMs", opts.maxRetryWaitMs, DEFAULT_RETRY.maxRetryWaitMs),
      baseMs: nonNegative("retryBaseMs", opts.retryBaseMs, DEFAULT_RETRY.baseMs),
      maxDelayMs: nonNegative("retryMaxDelayMs", opts.retryMaxDelayMs, DEFAULT_RETRY.maxDelayMs),
    },
    timeoutMs: positive("timeoutMs", opts.timeoutMs, CLIENT_DEFAULTS.timeoutMs),
    deadlineMs: positive("deadlineMs", opts.deadlineMs, CLIENT_DEFAULTS.deadlineMs),
    maxResponseBytes: positive("maxResponseBytes", opts.maxResponseBytes, CLIENT_DEFAULTS.maxResponseBytes, true),
    logger: callback("logger", opts.logger),
    clock: clockOf(opts),
  };
}

/**
 * getClient's cache key: base URL, key fingerprint and rate settings. A different route table is a
 * different client (the same key and base URL, other paths); the key itself is never held.
 */
export function clientCacheKey(opts: ClientOptions): string {
  const insecure = insecureHostsOf(opts);
  const routes = routesOf(opts);
  const base = normalizeBaseUrl(checkUrl(opts.baseUrl, "baseUrl", insecure), routes.prefix);
  const key = typeof opts.apiKey === "string" ? keyFingerprint(opts.apiKey) : "";
  return [
    base,
    key,
    opts.requestsPerSecond ?? CLIENT_DEFAULTS.requestsPerSecond,
    opts.burst ?? CLIENT_DEFAULTS.burst,
    [...insecure].sort().join(","),
    routes.source,
  ].join("\n");
}
