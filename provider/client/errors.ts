/**
 * The client's error model, in one place (contract.md "Errors"). Every failure the client throws
 * is one of these, a ParameterError (bad input, nothing was sent), or the caller's own
 * AbortSignal reason. Each class has a stable `code`, like undici's errors, so callers branch on
 * codes rather than on message text.
 *
 * No error here ever holds the API key or the Authorization header: errors are built from the
 * operation id, method, path and the server's answer only, and server text is scrubbed of the
 * key before it gets here (see security.ts).
 */
import { STATUS_CODES } from "node:http";

import { oneLine } from "../util";

export { ParameterError } from "../../contract/parameterError";

/** Appended to a message when the client tried more than once. */
function attemptsSuffix(attempts: number): string {
  return attempts > 1 ? ` (after ${attempts} attempts)` : "";
}

/** Where a failed request went: enough to find it in a server log, never the host or the key. */
export interface RequestContext {
  /** The operation id of the route table, or `putPart` for a part upload. */
  readonly operationId: string;
  readonly method: string;
  /** Path and query as sent (for part uploads the path only: their query is a credential). */
  readonly path: string;
  /** The route's path template the path was built from (`/v1/organizations/{orgId}/users`); none for a part upload. */
  readonly pathTemplate?: string;
}

/** Base of every error the client defines; `code` is stable across versions. */
export abstract class ReviewAdminError extends Error {
  abstract readonly code: string;
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  /** The route's path template the path was built from, when it was an API call: says which table (built-in or the OpenAPI document's) was in use. */
  readonly pathTemplate?: string;

  constructor(message: string, ctx: RequestContext, options?: { cause?: unknown }) {
    super(message, options);
    this.operationId = ctx.operationId;
    this.method = ctx.method;
    this.path = ctx.path;
    if (ctx.pathTemplate !== undefined) this.pathTemplate = ctx.pathTemplate;
  }
}

/**
 * The service answered with a status other than 2xx. Message, one line:
 * `<operationId> <METHOD> <path>: <status> <title or message>` plus ` (after N attempts)` when N > 1.
 */
export class ApiError extends ReviewAdminError {
  override readonly name = "ApiError";
  readonly code = "RA_ERR_API";
  readonly status: number;
  /** `title` of a `{title, status}` body. */
  readonly title?: string;
  /** `message` of a `{message, status}` body (some not-found answers use it). */
  readonly serviceMessage?: string;
  /** How many times the request was sent, retries included. */
  readonly attempts: number;
  /** The parsed JSON body, or up to 1000 characters of a non-JSON body. */
  readonly body?: unknown;

  constructor(ctx: RequestContext, answer: { status: number; title?: string; serviceMessage?: string; body?: unknown }, attempts: number) {
    const detail = answer.title ?? answer.serviceMessage ?? STATUS_CODES[answer.status] ?? "HTTP error";
    super(`${ctx.operationId} ${ctx.method} ${ctx.path}: ${answer.status} ${oneLine(detail)}${attemptsSuffix(attempts)}`, ctx);
    this.status = answer.status;
    if (answer.title !== undefined) this.title = answer.title;
    if (answer.serviceMessage !== undefined) this.serviceMessage = answer.serviceMessage;
    this.attempts = attempts;
    if (answer.body !== undefined) this.body = answer.body;
  }
}

/**
 * A 2xx answer that does not match the route's schema (or the envelope, or a part upload without
 * an ETag). `fieldPath` names the offending field, e.g. `data.0.name` or `links.next`.
 */
export class ResponseValidationError extends ReviewAdminError {
  override readonly name = "ResponseValidationError";
  readonly code = "RA_ERR_RESPONSE_VALIDATION";
  /** Dotted path of the bad field from the top of the response body, e.g. `data.owningOrganizationId`. */
  readonly fieldPath: string;
  /** What is wrong with it, e.g. `Invalid input: expected number, received string`. */
  readonly rule: string;

  constructor(ctx: RequestContext, fieldPath: string, rule: string) {
    super(`${ctx.operationId} ${ctx.method} ${ctx.path}: response field '${fieldPath}' ${oneLine(rule)}`, ctx);
    this.fieldPath = fieldPath;
    this.rule = rule;
  }
}

/**
 * No HTTP answer: the connection failed, was reset or closed early. `causeCode` is the low-level
 * code (ECONNRESET, ECONNREFUSED, UND_ERR_SOCKET, ...). `cause` is a copy holding only name,
 * code and message, so nothing of the request (headers) can hang off it.
 */
export class NetworkError extends ReviewAdminError {
  override readonly name: string = "NetworkError";
  readonly code: string = "RA_ERR_NETWORK";
  /** The low-level error code, e.g. `ECONNRESET` or `UND_ERR_SOCKET`. */
  readonly causeCode: string;
  /** How many times the request was sent, retries included. */
  readonly attempts: number;

  constructor(ctx: RequestContext, causeCode: string, description: string, attempts: number, cause?: Error) {
    super(`${ctx.operationId} ${ctx.method} ${ctx.path}: ${causeCode} ${oneLine(description)}${attemptsSuffix(attempts)}`, ctx, { cause });
    this.causeCode = causeCode;
    this.attempts = attempts;
  }
}

/**
 * The request did not finish within `timeoutMs` (a kind of NetworkError, retried the same way),
 * or the call's deadline passed (`description` says which).
 */
export class TimeoutError extends NetworkError {
  override readonly name = "TimeoutError";
  override readonly code = "RA_ERR_TIMEOUT";

  constructor(ctx: RequestContext, timeoutMs: number, attempts: number, description = `timed out after ${timeoutMs} ms`) {
    super(ctx, "UND_ERR_TIMEOUT", description, attempts);
  }
}

/** A URL the client refuses to talk to: not https, and not plain http to a loopback host. */
export class InsecureUrlError extends Error {
  override readonly name = "InsecureUrlError";
  readonly code = "RA_ERR_INSECURE_URL";
}

/** Bad ClientOptions (a missing key, a negative rate, ...). Never quotes the key. */
export class ClientConfigError extends Error {
  override readonly name = "ClientConfigError";
  readonly code = "RA_ERR_CONFIG";
}

/** A call on a client after close(). */
export class ClientClosedError extends Error {
  override readonly name = "ClientClosedError";
  readonly code = "RA_ERR_CLIENT_CLOSED";
}
