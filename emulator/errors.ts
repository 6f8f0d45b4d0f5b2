/**
 * The errors only the HTTP layer throws (401, 403, 405, 429, injected faults) and the ONE
 * function that turns every named error into an HTTP answer.
 *
 * The model and the handlers throw named errors and never pick a status code themselves
 * (the fake-gcs-server habit): the world's own (NotFound, BadRequest, Unprocessable) live in
 * model/errors.ts, re-exported here; `toErrorResponse` below is the only place that knows that a
 * NotFound is a 404 and what the body looks like.
 */
import { ParameterError } from "../contract/parameterError";
import type { RouteDef } from "../contract/routeDef";
import { BadRequest, EmulatorError, NotFound, Unprocessable } from "./model/errors";

export { BadRequest, EmulatorError, NotFound, Unprocessable };

/** The caller is authenticated but lacks the role the endpoint's Access column asks for (403). */
export class Forbidden extends EmulatorError {
  override name = "Forbidden";
}

/** Missing or invalid API key (401; the contract's choice, the spec does not say). */
export class Unauthorized extends EmulatorError {
  override name = "Unauthorized";
}

/** Too many requests (429); `retryAfterSeconds` becomes the Retry-After header. */
export class RateLimited extends EmulatorError {
  override name = "RateLimited";
  constructor(
    message: string,
    /** Whole seconds until a retry can succeed. */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The path exists, but not with this method (405). */
export class MethodNotAllowed extends EmulatorError {
  override name = "MethodNotAllowed";
}

/** A server-side failure the fault injector asked for (500 or 503). */
export class InjectedFault extends EmulatorError {
  override name = "InjectedFault";
  constructor(readonly status: 500 | 503) {
    super(status === 503 ? "Service unavailable (injected fault: scheduled maintenance)" : "Internal server error (injected fault)");
  }
}

/**
 * True when `err` says the client closed the connection before its request was read (Node's
 * "aborted" / ECONNRESET on the request): a client's choice, not an emulator bug, so there is no
 * one to answer and nothing to report.
 */
export function isClientGone(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return (
    typeof e === "object" && e !== null && (e.code === "ECONNRESET" || e.code === "ERR_STREAM_PREMATURE_CLOSE" || e.message === "aborted")
  );
}

/** The body of an error answer: `{title, status}`, or `{message, status}` for some 404s. */
export type ErrorBody = { title: string; status: number } | { message: string; status: number };

/** An error turned into what goes on the wire. */
export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

/**
 * Maps any thrown value to status, body and headers; the only place statuses are chosen. A 404
 * takes the body shape of `route` (its notFoundBody: `{message, status}` for E13, E20 and E24,
 * as the spec's samples show), `{title, status}` otherwise and when no route matched.
 */
export function toErrorResponse(err: unknown, route?: RouteDef): ErrorResponse {
  const answer = (status: number, title: string, headers: Record<string, string> = {}): ErrorResponse => ({
    status,
    body: { title, status },
    headers,
  });
  if (err instanceof ParameterError) return answer(400, `invalid parameter '${err.parameter}': ${err.rule}`);
  if (err instanceof BadRequest) return answer(400, err.message);
  if (err instanceof Unauthorized) return answer(401, err.message);
  if (err instanceof Forbidden) return answer(403, err.message);
  if (err instanceof NotFound) {
    if (route?.notFoundBody === "message") {
      return { status: 404, body: { message: err.message, status: 404 }, headers: {} };
    }
    return answer(404, err.message);
  }
  if (err instanceof MethodNotAllowed) return answer(405, err.message);
  if (err instanceof Unprocessable) return answer(422, err.message);
  if (err instanceof RateLimited) return answer(429, err.message, { "retry-after": String(err.retryAfterSeconds) });
  if (err instanceof InjectedFault) {
    // A maintenance window says when to come back; a crash does not.
    return answer(err.status, err.message, err.status === 503 ? { "retry-after": "1" } : {});
  }
  // A bug in the emulator: answer like a server would, and leave a trace for whoever runs it.
  console.error("emulator: unexpected error", err);
  return answer(500, `Internal server error: ${err instanceof Error ? err.message : String(err)}`);
}
