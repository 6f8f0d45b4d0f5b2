/**
 * Reading answers: a 2xx body into validated data (and links.next), any other status into an
 * ApiError. The key is taken out after JSON decoding, so an echo written with `\u` escapes is
 * found too, and a links.next that carries the key is refused rather than followed.
 */
import { type RouteDef } from "../../contract/routes";
import { ErrorBody } from "../../contract/schemas";
import { ApiError, ResponseValidationError, type RequestContext } from "./errors";
import { type KeyScrubber } from "./security";
import { type WireResponse } from "./transport";

/** A validated 2xx answer: its data, and links.next when the envelope has one. */
export interface Page {
  data: unknown;
  next: string | null;
}

/** Formats a zod issue path like ParameterError does: `data.0.name`. */
function dotted(prefix: string, path: readonly PropertyKey[]): string {
  return [prefix, ...path.map(String)].filter(Boolean).join(".");
}

/** The body as JSON, or `NOT_JSON`; an empty body is undefined. */
const NOT_JSON = Symbol("not JSON");
function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/** Builds the ApiError of a non-2xx answer; accepts `{title, status}` and `{message, status}`, or any text. */
export function apiErrorOf(ctx: RequestContext, res: WireResponse, attempts: number, scrubber: KeyScrubber): ApiError {
  const parsed = parseJson(res.text);
  let body: unknown;
  let title: string | undefined;
  let serviceMessage: string | undefined;
  if (parsed === NOT_JSON) {
    // Not JSON (a proxy's HTML page): the status alone makes the error; some of the text is kept.
    body = scrubber.text(res.text).slice(0, 1000);
  } else {
    body = scrubber.value(parsed);
    const shape = ErrorBody.safeParse(body);
    if (shape.success) {
      title = shape.data.title;
      serviceMessage = shape.data.message;
    }
  }
  return new ApiError(ctx, { status: res.status, title, serviceMessage, body }, attempts);
}

/** Validates a 2xx answer against the route's envelope and data schema; the data comes back with the key taken out. */
export function readPage(route: RouteDef, ctx: RequestContext, res: WireResponse, scrubber: KeyScrubber): Page {
  const raw = parseJson(res.text);
  if (raw === NOT_JSON) {
    if (route.envelope === "none") return { data: undefined, next: null };
    throw new ResponseValidationError(ctx, "(body)", "is not JSON");
  }
  const body = scrubber.value(raw);

  if (route.envelope === "none") {
    const hasData = typeof body === "object" && body !== null && "data" in body;
    return { data: hasData ? (body as { data: unknown }).data : body, next: null };
  }

  if (typeof body !== "object" || body === null || Array.isArray(body) || !("data" in body)) {
    throw new ResponseValidationError(ctx, "data", "is missing: expected an object with a data member");
  }
  const parsed = route.data.safeParse((body as { data: unknown }).data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ResponseValidationError(ctx, dotted("data", issue.path), issue.message);
  }

  const links = (body as { links?: unknown }).links;
  if (route.envelope === "list" || links !== undefined) {
    // links.next is always present on list answers (spec "Response envelope"); the events shape may omit links.
    const next = (links as { next?: unknown } | undefined)?.next;
    if (typeof links !== "object" || links === null || !(next === null || typeof next === "string")) {
      throw new ResponseValidationError(ctx, "links.next", "must be a URL string or null");
    }
    // Following it would send the key in a URL (or "[REDACTED]" in its place): refused either way.
    const rawNext = (raw as { links: { next: unknown } }).links.next;
    if (typeof rawNext === "string" && scrubber.finds(rawNext)) {
      throw new ResponseValidationError(ctx, "links.next", "holds the API key; refusing to send the key in a URL");
    }
    return { data: parsed.data, next: next as string | null };
  }
  return { data: parsed.data, next: null };
}
