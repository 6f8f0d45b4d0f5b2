/**
 * The one way a failure reaches the user: a single line saying what was being done, to what,
 * what the service answered, and what to check. Resources and data sources both word their
 * errors here. The facts behind the hints live in the route table (contract/routes.ts): who may
 * call a route (`access`) and which ids its path names.
 */
import { STATUS_CODES } from "node:http";
import { BUILT_IN_ROUTES, ParameterError, pathParamsOf, type RouteDef } from "../contract";
import type { OperationId } from "../contract/types";
import { accessText } from "../contract/routing";
import { ApiError, NetworkError, ResponseValidationError } from "./client";
import { oneLine } from "./util";

/** An error already worded for the user (it names the action); explainFailure passes it through unchanged. */
export class ResourceError extends Error {
  override readonly name = "ResourceError";
}

/** The path parameters of a route worded as nouns: `orgId` 102 is "organization 102". */
const NOUNS: Record<string, string> = {
  orgId: "organization",
  databaseId: "database",
  userId: "user",
  directoryId: "directory",
  datasetId: "dataset",
  sourceFileId: "source file",
  eventId: "event",
  partNumber: "part",
};

/**
 * The ids a failed request's path named, by the route's parameter names. Read through the path
 * template the client used (`err.pathTemplate`): with routes from the vendor's OpenAPI document the
 * path as sent is the document's, not the built-in row's.
 */
function idsOf(err: ApiError, route: RouteDef | undefined): Record<string, string> {
  if (!route) return {};
  return pathParamsOf(err.pathTemplate ? { ...route, path: err.pathTemplate } : route, err.path) ?? {};
}

/**
 * What went wrong with one call, in the one vocabulary the resources' errors and the doctor share.
 * "not-the-api": an answer that is not the administration API's (an HTML page, a proxy's error,
 * a success of another shape), which means the base URL points elsewhere.
 */
export type FailureKind =
  "rejected" | "forbidden" | "not-found" | "not-the-api" | "unreachable" | "throttled" | "limit" | "service-error" | "other";

/** The kind of a failure of a call. */
export function failureKind(err: unknown): FailureKind {
  if (err instanceof ApiError) {
    if (err.status === 401) return "rejected";
    // The API always answers errors with a JSON body holding a title or a message; a page from
    // another server (an HTML 404, a proxy's 502) does not.
    if (err.title === undefined && err.serviceMessage === undefined) return "not-the-api";
    if (err.status === 403) return "forbidden";
    if (err.status === 404) return "not-found";
    if (err.status === 422) return "limit";
    if (err.status === 429) return "throttled";
    return err.status >= 500 ? "service-error" : "other";
  }
  if (err instanceof ResponseValidationError) return "not-the-api";
  if (err instanceof NetworkError) return "unreachable";
  return "other";
}

/**
 * What to do about each kind of failure whose remedy does not depend on the route: the hint of a
 * resource's or data source's error and the doctor's `fix:` line both read it here.
 */
export const REMEDIES = {
  rejected:
    "the API key is missing, invalid, disabled or revoked: check reviewadmin:apiKey / REVIEWADMIN_API_KEY, and that the key was made in the region of reviewadmin:baseUrl (keys are per region). " +
    "A key unused for 90 days is disabled: an org admin sees keys by their id in the web application's list of API keys and can make a new one. " +
    "Changed the key since? `pulumi refresh` and `pulumi destroy` use the configuration saved by the last `pulumi up`: run `pulumi up` first, or add --run-program",
  "not-the-api":
    "set reviewadmin:baseUrl / REVIEWADMIN_BASE_URL to the API address of the region where the key was made, without the /v1 path; `pulumi-reviewadmin routes` lists the paths this version calls",
  unreachable:
    "check the host and port of reviewadmin:baseUrl / REVIEWADMIN_BASE_URL, and that this machine can reach it (proxy, VPN, firewall)",
  throttled:
    "the account's 25 requests per second are used up, by this run or by others sharing the account: wait a few seconds and try again, and give runs that share the account a lower reviewadmin:requestsPerSecond / REVIEWADMIN_REQUESTS_PER_SECOND",
  limit: "a limit of the service was reached; limits are raised per organization on request",
  "service-error": "a problem on the service's side (maintenance?): try again later",
} as const satisfies Partial<Record<FailureKind, string>>;

/** What to check after a failure of the service, from its kind and the route's facts. */
export function hintFor(err: ApiError): string | undefined {
  const route = BUILT_IN_ROUTES.route(err.operationId);
  const ids = idsOf(err, route);
  const kind = failureKind(err);
  if (kind === "not-the-api" || kind === "rejected" || kind === "limit" || kind === "throttled" || kind === "service-error") {
    return REMEDIES[kind];
  }
  switch (err.status) {
    case 403: {
      if (!route) return "the API key in use lacks the permission";
      const num = (k: string) => (ids[k] !== undefined ? Number(ids[k]) : undefined);
      const needs = accessText(route, { orgId: num("orgId"), databaseId: num("databaseId"), directoryId: num("directoryId") });
      return `this needs ${needs}, which the API key in use lacks`;
    }
    case 404: {
      const named = Object.entries(ids).map(([k, v]) => `${NOUNS[k] ?? k} ${v}`);
      return named.length ? `check that ${named.join(" and ")} exist${named.length === 1 ? "s" : ""}` : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The service's answer as one line: the status and its title or message, e.g. `404 organization
 * 5 not found`. For a 403 of a known route, the status and its reason phrase only (`403
 * Forbidden`): the service's text names the role the route table's access rule names again in
 * the hint, so the role is said once, from the route table (the text stays on `err.title`).
 */
export function answerText(err: ApiError): string {
  if (err.title === undefined && err.serviceMessage === undefined) {
    // Not the API's JSON error: say what came back instead (an HTML page is another server's).
    const body = typeof err.body === "string" ? err.body.trimStart() : "";
    return `${err.status} with ${body.startsWith("<") ? "an HTML page" : body ? "a body that is not the API's JSON" : "an empty body"}`;
  }
  const said =
    err.status === 403 && BUILT_IN_ROUTES.route(err.operationId) ? STATUS_CODES[403] : oneLine(err.title ?? err.serviceMessage ?? "");
  return said ? `${err.status} ${said}` : String(err.status);
}

/** One line for why something failed, without the action: the service's answer and a hint, or the error's message. */
export function describeCause(err: unknown): string {
  if (err instanceof ApiError) {
    const hint = hintFor(err);
    return `the service answered ${answerText(err)}${hint ? ` (${hint})` : ""}`;
  }
  if (err instanceof ParameterError) return `invalid argument '${err.parameter}': ${err.rule}`;
  const said = oneLine(err instanceof Error ? err.message : String(err), 400);
  const check = err instanceof NetworkError ? connectionHint(err.causeCode) : undefined;
  return check ? `${said} (${check})` : said;
}

/** What to check when no answer came, by the low-level code; the doctor's fix for it too. */
export function connectionHint(code: string): string | undefined {
  if (code === "ECONNREFUSED")
    return "nothing listens at reviewadmin:baseUrl: check the address and port, and that the service (or the emulator) runs";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return "the host of reviewadmin:baseUrl has no address here: check its spelling, and DNS or a proxy";
  if (/CERT|SSL|TLS/.test(code))
    return "the TLS certificate was refused: check that reviewadmin:baseUrl is the service's address, or the machine's CA certificates";
  if (code === "UND_ERR_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT")
    return "no answer in time: check the network path to reviewadmin:baseUrl (firewall, proxy)";
  return undefined;
}

/**
 * The user's error for a failure while doing `action` ("creating OrgMember a@b.c in organization
 * 102", "getOrganizationMembers: reading the members of organization 102"):
 * `<action>: <describeCause(err)>`, with `err` as its cause. A ResourceError passes unchanged.
 */
export function explainFailure(action: string, err: unknown): Error {
  if (err instanceof ResourceError) return err;
  return new ResourceError(`${action}: ${describeCause(err)}`, { cause: err });
}

/**
 * True when a write may have taken effect although no success came back: the connection failed
 * or timed out after the request left, or the service answered 5xx. The client never repeats
 * such a write on a route that is not idempotent, so the caller must say what to check.
 */
export function answerLost(err: unknown): boolean {
  return err instanceof NetworkError || (err instanceof ApiError && err.status >= 500);
}

/**
 * For `.catch` on a delete whose caller must go on (forget a cached entry) when the thing is
 * already gone: a 404 is swallowed, anything else rethrown.
 */
export function ignore404(err: unknown): void {
  if (!isStatus(err, 404)) throw err;
}

/** True for an ApiError with the given status (of the given operation, when named). */
export function isStatus(err: unknown, status: number, operationId?: OperationId): boolean {
  return err instanceof ApiError && err.status === status && (operationId === undefined || err.operationId === operationId);
}
