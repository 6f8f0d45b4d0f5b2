/**
 * Parameter rules from the spec, as zod schemas shared by the client (checked before a request
 * leaves) and the emulator (answered 400). An integer may also be given as a string of plain
 * decimal digits, so the same schema reads a path or query string on the server side; any other
 * string (`0x66`, `1e3`, ` 12`, `12.0`, `-1`) is refused rather than read the way Number() would.
 */
import { z } from "zod";
import { ParameterError } from "./parameterError";
import type { Schema } from "./routeDef";

export { ParameterError };

/** Largest unix-millisecond instant a JavaScript Date can hold. */
const MAX_UNIX_MS = 8.64e15;

/** A string of plain decimal digits as its number; any other string as NaN (refused); a non-string as it is. */
function digitsAsNumber(value: unknown): unknown {
  if (typeof value !== "string") return value;
  return /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
}

/** An integer (a number, or a string of decimal digits) that `rule` accepts; `message` for any failure. */
function integer(message: string, rule: (n: z.ZodNumber) => z.ZodNumber) {
  return z.preprocess(digitsAsNumber, rule(z.number({ message }).int({ message })));
}

function intRange(min: number, max: number, what = "an integer") {
  const message = `must be ${what} from ${min} to ${max}`;
  return integer(message, (n) => n.min(min, { message }).max(max, { message }));
}

/** A path id: a positive integer, or its plain decimal digits as a string. */
export const id = integer("must be a positive integer id", (n) => n.positive({ message: "must be a positive integer id" }));

/** The largest `limit` of ordinary list endpoints. */
export const LARGEST_LIST_PAGE = 200;
/** The largest `limit` of activity endpoints. */
export const LARGEST_EVENT_PAGE = 10_000;
/** `limit` of ordinary list endpoints: 1..200, default 100. */
export const listLimit = intRange(1, LARGEST_LIST_PAGE).optional();
/** `limit` of activity endpoints: 1..10000, default 1000. */
export const eventLimit = intRange(1, LARGEST_EVENT_PAGE).optional();
/** `after`: the id of the last element of the previous page. */
export const after = intRange(0, Number.MAX_SAFE_INTEGER, "a non-negative integer id").optional();
/** `year`: four digits. */
export const year = intRange(1000, 9999, "a four-digit year").optional();
/** `month`: 1..12. */
export const month = intRange(1, 12, "a month number").optional();
/** `begin`/`end`: unix milliseconds. */
export const unixMs = intRange(0, MAX_UNIX_MS, "a unix time in milliseconds");
/** A part number of a multipart upload: 1..10000. */
export const partNumber = intRange(1, 10000, "a part number");

/** after + limit, the pagination inputs every list endpoint takes. */
export const paging = { after, limit: listLimit };

/** Parses `value` with `schema`; throws a ParameterError naming the first bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, operationId?: string, prefix?: string): z.output<S>;
/** Parses `value` with a route's schema (known only as a Schema); throws a ParameterError naming the first bad field. */
export function parseOrThrow(schema: Schema, value: unknown, operationId?: string, prefix?: string): unknown;
export function parseOrThrow(schema: Schema, value: unknown, operationId?: string, prefix = ""): unknown {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = [prefix, ...issue.path.map(String)].filter(Boolean).join(".") || "(value)";
  throw new ParameterError(where, issue.message, operationId);
}
