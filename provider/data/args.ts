/**
 * Arguments of the data sources. Each data source has ONE zod schema of its arguments (a strict
 * object, next to the function); its TypeScript argument type is derived from it (`z.input`), so
 * a name, a type or a rule is written once. The pieces here are what those schemas share: ids by
 * the contract's id rule, numbers by the contract's rules, and the one parse that refuses bad
 * arguments before anything is sent, as one line naming the argument:
 *
 *   getOrganizationMembers: invalid argument 'permision': not an argument of getOrganizationMembers (did you mean 'permission'?)
 *   getOrganizationMembers: invalid argument 'permission': must be one of ORG_ADMIN, ..., got "ORG_ADMN" (did you mean "ORG_ADMIN"?)
 *   getOrganization: invalid argument 'organizationId': must be a positive integer id, got -3
 *   getOrganization: missing argument 'organizationId'
 */
import { z } from "zod";
import { params } from "../../contract";
import { oneLine } from "../util";
import { argumentError } from "./dataSourceError";

/** The wording of a contract rule ("must be a positive integer id"): what it says of a value that is not a number at all. */
function ruleText(rule: z.ZodType): string {
  return rule.safeParse(Number.NaN).error?.issues[0]?.message ?? "is not valid";
}

/**
 * A contract rule typed for the input it is given here. The contract's rules coerce (they also
 * read query strings), so they take any input; zod's pipe wants the input type spelled out.
 */
function taking<I>(rule: z.ZodType<number, unknown>): z.ZodType<number, I> {
  return rule as unknown as z.ZodType<number, I>;
}

/**
 * An id argument: a number, or a string of digits (what stack config gives), checked by the
 * contract's id rule (a positive integer); parsed to a number.
 */
export const idArg = z.union([z.number(), z.string()], { error: ruleText(params.id) }).pipe(taking<number | string>(params.id));

/** A number argument checked by a contract rule (year, month, limits), worded by that rule for a value of another type too. */
export function numberArg(rule: z.ZodType<number, unknown>) {
  return z.number({ error: ruleText(rule) }).pipe(taking<number>(rule));
}

/** An integer argument from `min` to `max` (a rule of this package, not of the API). */
export function intArg(min: number, max: number) {
  const rule = `must be an integer from ${min} to ${max}`;
  return z.number({ error: rule }).int({ error: rule }).min(min, { error: rule }).max(max, { error: rule });
}

/** Argument names of earlier versions, and what they are called now: the "did you mean" for code written against them. */
const RENAMED: Readonly<Record<string, string>> = { orgId: "organizationId" };

/** The default wording of the issues a schema does not word itself: what the argument must be. */
const wording: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type") return MUST_BE[issue.expected] ?? `must be ${issue.expected}`;
  if (issue.code === "invalid_value") return `must be one of ${issue.values.map(String).join(", ")}`;
  return undefined;
};

const MUST_BE: Readonly<Record<string, string>> = {
  number: "must be a number",
  string: "must be a string",
  boolean: "must be true or false",
  array: "must be a list",
  object: "must be an object",
  date: "must be a Date",
};

/**
 * Parses a data source's arguments (`undefined` reads as `{}`) with its schema, before anything
 * is sent; throws the DataSourceError `<dataSource>: <refusal>` worded by `refusal`.
 */
export function parseArgs<S extends z.ZodObject>(dataSource: string, schema: S, args: unknown): z.output<S> {
  const value = args === undefined ? {} : args;
  const result = schema.safeParse(value, { error: wording });
  if (result.success) return result.data;
  throw argumentError(dataSource, refusal(dataSource, schema, value, result.error.issues), result.error);
}

/**
 * One line for the first problem, an unknown argument first (it is usually why a required one
 * looks missing): `invalid argument '<name>': <rule>, got <value>` with a "did you mean" for a
 * near miss, `missing argument '<name>'`, or a refinement's own message (argument combinations).
 */
function refusal(dataSource: string, schema: z.ZodObject, args: unknown, issues: readonly z.core.$ZodIssue[]): string {
  const names = Object.keys(schema.shape);
  const issue = issues.find((i) => i.code === "unrecognized_keys") ?? issues[0];
  if (!issue) return "invalid arguments";
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    if (issue.path.length > 0) {
      const keys = keysAt(schema, issue.path);
      const rule = keys ? `must be one of ${keys.join(", ")}` : `not a key ${pathText(issue.path)} takes`;
      return `invalid argument '${pathText([...issue.path, key])}': ${rule}${keys ? suggestion(key, keys, "'") : ""}`;
    }
    return `invalid argument '${key}': not an argument of ${dataSource}${suggestion(key, names, "'")}`;
  }
  if (issue.path.length === 0) {
    return issue.code === "custom" ? issue.message : `invalid arguments: ${issue.message}, got ${shown(args)}`;
  }
  const name = pathText(issue.path);
  const value = valueAt(args, issue.path);
  if (value === undefined && issue.path.length === 1) return `missing argument '${name}'`;
  const near = issue.code === "invalid_value" && typeof value === "string" ? suggestion(value, issue.values.map(String), '"') : "";
  return `invalid argument '${name}': ${issue.message}, got ${shown(value)}${near}`;
}

/** What a schema node may hold, as far as the refusal needs it: an object's fields, a record's key enum, an optional's inner schema. */
interface SchemaNode {
  shape?: Record<string, SchemaNode>;
  keyType?: { options?: readonly unknown[] };
  unwrap?: () => SchemaNode;
}

/** The keys the object or enum-keyed record at `path` takes, when the schema says. */
function keysAt(schema: z.ZodObject, path: readonly PropertyKey[]): string[] | undefined {
  const bare = (n: SchemaNode | undefined) => (n?.unwrap ? n.unwrap() : n);
  let node: SchemaNode | undefined = schema as unknown as SchemaNode;
  for (const p of path) node = bare(node)?.shape?.[String(p)];
  node = bare(node);
  const keys = node?.keyType?.options ?? (node?.shape ? Object.keys(node.shape) : undefined);
  return keys?.map(String);
}

/** ` (did you mean 'x'?)` for the nearest candidate within a few edits (or a renamed argument), else "". */
function suggestion(word: string, candidates: readonly string[], quote: string): string {
  const near = nearest(word, candidates);
  return near === undefined ? "" : ` (did you mean ${quote}${near}${quote}?)`;
}

/**
 * The candidate nearest to `word`: its new name if it was renamed, the same word in another case,
 * or one within an edit per five characters (at least one): a typo, not another word
 * (`DB_ADMIN` is two edits from `AI_ADMIN`, and no typo of it).
 */
function nearest(word: string, candidates: readonly string[]): string | undefined {
  const renamed = RENAMED[word];
  if (renamed !== undefined && candidates.includes(renamed)) return renamed;
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(word.length / 5)) + 1;
  for (const c of candidates) {
    const d = c.toLowerCase() === word.toLowerCase() ? 0 : editDistance(word, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`: a swap is one typo, not two. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number) => d[i]![j]!;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i]![j] = best;
    }
  }
  return at(a.length, b.length);
}

/** `types[1]`, `organizationId`. */
function pathText(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

function valueAt(args: unknown, path: readonly PropertyKey[]): unknown {
  let v = args;
  for (const p of path) v = v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

/** A value as the user wrote it, short: JSON for data, the ISO time for a Date. */
function shown(value: unknown): string {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "an invalid Date" : `Date ${value.toISOString()}`;
  if (
    value === undefined ||
    typeof value === "number" ||
    typeof value === "bigint" ||
    typeof value === "symbol" ||
    typeof value === "function"
  ) {
    return typeof value === "function" ? "a function" : String(value);
  }
  try {
    return oneLine(JSON.stringify(value) ?? String(value), 80);
  } catch {
    return oneLine(String(value), 80);
  }
}
