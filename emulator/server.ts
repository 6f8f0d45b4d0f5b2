/**
 * The HTTP adapter: one node:http request handler that routes with the shared route table,
 * authenticates, rate-limits, injects faults, validates parameters and bodies, calls the handler
 * and writes the envelope or the one error shape. Handlers never touch the socket.
 *
 * Besides the control API (/_emulator) and the part URLs (/_upload/), routing is by the route
 * table alone (the built-in one, or the one read from an OpenAPI document at start). Order of checks: route (404 when no route has the path, 405 when one has it with
 * another method), key (401, or 429 once the failed-authentication limit is hit), rate limit of
 * the caller's account (429), injected fault, parameters and body (400), then the handler
 * (403/404/...).
 *
 * The control API takes no API key; when the emulator has a control token (always when it
 * listens off loopback) every control request but the health check must carry it in the
 * X-Emulator-Token header, or gets 401 (429 past the failed-authentication limit).
 *
 * A client that closes the connection before its request is read gets no answer and leaves no
 * error report: it is logged with status 0, as a dropped connection is.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import * as http from "node:http";
import { parseOrThrow } from "../contract/params";
import type { RouteDef } from "../contract/routeDef";
import type { OperationId } from "../contract/types";
import { handleControl, type ControlRuntime } from "./control";
import { BadRequest, InjectedFault, isClientGone, MethodNotAllowed, NotFound, RateLimited, Unauthorized, toErrorResponse } from "./errors";
import { callHandler } from "./handlers";
import type { HandlerContext, HandlerResult } from "./handlers/types";
import type { Caller } from "./model/records";
import { PART_UPLOAD_PREFIX } from "./model/uploadStore";
import { handlePartUpload, PART_UPLOAD_OPERATION } from "./partUpload";

/** Largest body taken by multipart routes (E5: CSV up to 190 MB, plus the form's framing). */
const MAX_MULTIPART_BYTES = 200_000_000;
/** Largest JSON body. */
const MAX_JSON_BYTES = 10_000_000;

/** Thrown when a body is larger than allowed (answered 400 naming `body`). */
class BodyTooLarge extends BadRequest {}

/** Reads the whole request body, refusing more than `max` bytes. */
function readBody(req: http.IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        reject(new BodyTooLarge("body", `must be at most ${max} bytes`));
        req.removeAllListeners("data");
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Writes a JSON answer (or an empty one when `body` is undefined). */
function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The body of a successful answer, in the route's envelope (spec, "Response envelope"). */
export function envelope(route: RouteDef, result: HandlerResult): unknown {
  if (route.envelope === "list") return { data: result.data ?? [], links: { next: result.next ?? null } };
  if (result.data === undefined) return undefined; // envelope "none": 204, no body
  return { data: result.data };
}

/** The API key of `Authorization: Bearer <key>`, or undefined. */
function bearerKey(req: http.IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}

/**
 * The base URL a client used to reach us (for links.next and part URLs): its Host header when
 * that is a plain host[:port], else the address we listen on.
 */
function baseUrlOf(req: http.IncomingMessage, fallback: string): string {
  const host = req.headers.host;
  return host && /^[A-Za-z0-9.-]+(:\d+)?$|^\[[0-9A-Fa-f:.]+\](:\d+)?$/.test(host) ? `http://${host}` : fallback;
}

/** The request URL; a target that is not a path (e.g. `*`) is read as `/`. */
function requestUrl(req: http.IncomingMessage, baseUrl: string): URL {
  try {
    return new URL(req.url?.startsWith("/") ? req.url : "/", baseUrl);
  } catch {
    return new URL("/", baseUrl);
  }
}

/** The control API's prefix; /_emulator/health answers without the control token. */
const CONTROL_PREFIX = "/_emulator";
const HEALTH_PATH = "/_emulator/health";
/** The header that carries the control token. */
export const CONTROL_TOKEN_HEADER = "x-emulator-token";

/** True when the request carries `token` in the control-token header (compared in constant time). */
function hasControlToken(req: http.IncomingMessage, token: string): boolean {
  const given = req.headers[CONTROL_TOKEN_HEADER];
  if (typeof given !== "string") return false;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** Resolves after `ms` milliseconds (0: at once). */
function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

/** Creates the emulator's HTTP server over a runtime (store, traffic, control). */
export function createServer(runtime: ControlRuntime): http.Server {
  const server = http.createServer((req, res) => {
    void handle(runtime, req, res);
  });
  // Never time out a slow upload: a part may take minutes on a throttled test link.
  server.requestTimeout = 0;
  return server;
}

/** Handles one request from start to finish; never throws. */
async function handle(runtime: ControlRuntime, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const started = performance.now();
  const method = req.method ?? "GET";
  const baseUrl = baseUrlOf(req, runtime.baseUrl());
  const url = requestUrl(req, baseUrl);
  const { store, traffic } = runtime;
  // What an answer written outside `finish` (a part upload) tells of the emulator's clock.
  res.setHeader("date", new Date(store.clock.now()).toUTCString());
  let operation: string | null = null;
  let route: RouteDef | undefined;
  let caller: Caller | undefined;
  let status = 500;

  // Closes the connection without an answer (logged with status 0).
  const drop = () => {
    status = 0;
    req.socket.destroy();
  };
  const finish = (s: number, body: unknown, headers: Record<string, string> = {}) => {
    status = s;
    // The Date header tells the emulator's clock, not the machine's: clients take "today" from it
    // (access that expires), and tests move that clock with POST /_emulator/clock. Stamped as the
    // answer is sent, as an HTTP server does, so it is never earlier than what the request wrote
    // (the request may have waited for the rate limit): who-changed's window relies on it.
    res.setHeader("date", new Date(store.clock.now()).toUTCString());
    send(res, s, body, headers);
  };

  const isControl = url.pathname === CONTROL_PREFIX || url.pathname.startsWith(`${CONTROL_PREFIX}/`);
  if (!isControl) traffic.began();
  try {
    // Control API: no API key, no limits, not in the request log (tests read the log through it).
    if (isControl) {
      const token = runtime.controlToken;
      if (token !== undefined && url.pathname.replace(/\/$/, "") !== HEALTH_PATH && !hasControlToken(req, token)) {
        const wait = traffic.authFailureLimiter.take(`ip:${req.socket.remoteAddress ?? "?"}`);
        if (wait > 0) throw new RateLimited("Too many failed authentication attempts", wait);
        throw new Unauthorized(`Unauthorized: the control API needs the emulator's control token in the X-Emulator-Token header`);
      }
      const body = await readBody(req, MAX_JSON_BYTES);
      const result = await handleControl(runtime, method, url, body);
      finish(result.status ?? 200, result.data === undefined ? undefined : { data: result.data }, result.headers);
      if (method !== "GET") runtime.persist();
      return;
    }

    // Part uploads go to pre-authenticated URLs (the URL is the credential); partUpload.ts answers them whole.
    if (url.pathname.startsWith(PART_UPLOAD_PREFIX)) {
      operation = PART_UPLOAD_OPERATION;
      const fault = traffic.faults.next(operation);
      await delay(traffic.faults.latencyFor(operation));
      if (fault?.drop === "before") return drop();
      if (fault?.status) throw faultError(fault.status, fault.retryAfter);
      status = await handlePartUpload(req, res, store);
      runtime.persist();
      return;
    }

    const matched = runtime.routes.match(method, url.pathname);
    if (!matched) {
      if (runtime.routes.pathIsKnown(url.pathname)) throw new MethodNotAllowed(`Method ${method} is not allowed on ${url.pathname}`);
      throw new NotFound("path", url.pathname);
    }
    route = matched.route;

    // Authentication, with its stricter limit on failures per client address.
    const key = bearerKey(req);
    caller = key ? store.apiKeys.resolve(key) : undefined;
    if (!caller) {
      const wait = traffic.authFailureLimiter.take(`ip:${req.socket.remoteAddress ?? "?"}`);
      if (wait > 0) throw new RateLimited("Too many failed authentication attempts", wait);
      throw new Unauthorized(key ? "Unauthorized: invalid API key" : "Unauthorized: missing API key (send Authorization: Bearer <key>)");
    }
    const wait = traffic.rateLimiter.take(caller.account);
    if (wait > 0) {
      throw new RateLimited(`Rate limit exceeded: ${traffic.rateLimiter.perSecond} requests per second per account`, wait);
    }

    // The log counts a request under its operation from here on: refused keys and rate-limited
    // requests count under none, so a test that counts an operation's calls sees only served ones.
    operation = route.operationId;

    const fault = traffic.faults.next(route.operationId);
    await delay(traffic.faults.latencyFor(route.operationId));
    if (fault?.drop === "before") return drop();
    if (fault?.status) throw faultError(fault.status, fault.retryAfter);

    const query = Object.fromEntries(url.searchParams);
    const params = parseOrThrow(route.params, { ...query, ...matched.pathParams }, route.operationId) as HandlerContext["params"];
    const raw = await readBody(req, route.body === "multipart" ? MAX_MULTIPART_BYTES : MAX_JSON_BYTES);
    let body: unknown;
    if (route.body && route.body !== "multipart") {
      let json: unknown;
      try {
        json = raw.length === 0 ? undefined : JSON.parse(raw.toString("utf8"));
      } catch {
        throw new BadRequest("body", "must be valid JSON");
      }
      body = parseOrThrow(route.body, json, route.operationId, "body");
    }

    const ctx: HandlerContext = {
      route,
      routes: runtime.routes,
      params,
      body,
      rawBody: route.body === "multipart" ? raw : undefined,
      req,
      caller,
      store,
      baseUrl,
      url,
    };
    const result = await callHandler(route.operationId as OperationId, ctx);
    if (fault?.drop === "after") return drop();
    const out = envelope(route, result);
    finish(result.status ?? (out === undefined ? 204 : 200), out, result.headers);
    if (method !== "GET") runtime.persist();
  } catch (err) {
    if (isClientGone(err)) return drop();
    const answer = toErrorResponse(err, route);
    // A body we stopped reading must not be parsed as the next request on this connection.
    const headers = err instanceof BodyTooLarge ? { ...answer.headers, connection: "close" } : answer.headers;
    finish(answer.status, answer.body, headers);
  } finally {
    const entry = {
      method,
      path: url.pathname + url.search,
      operation,
      status,
      account: caller?.account ?? null,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    };
    if (!isControl) {
      traffic.log.record(entry);
      traffic.ended();
    }
    runtime.onRequest?.(entry);
  }
}

function faultError(status: 429 | 500 | 503, retryAfter = 1): Error {
  return status === 429 ? new RateLimited("Rate limit exceeded (injected fault)", retryAfter) : new InjectedFault(status);
}
