/**
 * What every resource implementation shares: input checking that tolerates preview unknowns,
 * normalized diffs, `__provider` stripping, one-line error messages, and the state schema version.
 */
import type * as pulumi from "@pulumi/pulumi";
import deepEqual from "fast-deep-equal";
import { z } from "zod";
import { ApiError } from "../client";

/** The engine's placeholder for a value not known during preview, whatever the field's type. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Version of the outputs this code writes; `delete` and `read` must accept every older one. */
export const SCHEMA_VERSION = 1;

/** The dynamic-provider methods a resource implements (the serialized shim forwards to these). */
export interface ResourceImpl {
  check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult>;
  diff(id: string, olds: any, news: any): Promise<pulumi.dynamic.DiffResult>;
  create(inputs: any): Promise<pulumi.dynamic.CreateResult>;
  read(id: string, props: any): Promise<pulumi.dynamic.ReadResult>;
  update(id: string, olds: any, news: any): Promise<pulumi.dynamic.UpdateResult>;
  delete(id: string, props: any): Promise<void>;
}

/** True for the preview placeholder, anywhere in a value. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/** Removes `__provider` (and any other engine key) before a value reaches the API or the schema. */
export function stripProvider<T extends Record<string, any>>(props: T): Omit<T, "__provider"> {
  const { __provider, ...rest } = props ?? ({} as T);
  return rest;
}

/**
 * Validates and normalizes inputs with a zod schema. Issues under a preview unknown are
 * dropped (the value will be checked again at `up`); each other issue becomes a failure naming
 * the field and the rule. `__provider` is kept so the engine stores it.
 */
export function checkWith<S extends z.ZodType>(schema: S, news: any): pulumi.dynamic.CheckResult {
  const input = stripProvider(news ?? {});
  const result = schema.safeParse(input);
  if (result.success) {
    return { inputs: { ...(result.data as object), __provider: news.__provider } };
  }
  const failures: pulumi.dynamic.CheckFailure[] = [];
  for (const issue of result.error.issues) {
    if (underUnknown(input, issue.path)) continue;
    const property = issue.path.length ? issue.path.map(String).join(".") : "(inputs)";
    failures.push({ property, reason: `${property}: ${issue.message}` });
  }
  // With only unknown-related issues, keep the raw inputs: they are checked again at `up`.
  return { inputs: news, failures };
}

function underUnknown(value: any, path: PropertyKey[]): boolean {
  let cur = value;
  if (cur === UNKNOWN) return true;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return false;
    cur = cur[key as any];
    if (cur === UNKNOWN) return true;
  }
  return false;
}

/** Sorted copy of a set-like list, so order never shows as a change. */
export function sortedSet<T>(items: readonly T[] | undefined | null): T[] | undefined {
  if (!items) return undefined;
  return [...new Set(items)].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0));
}

/** Email as stored and compared: trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * A diff over named fields: each field compared with fast-deep-equal after `normalize`;
 * `replaceOn` fields replace, the others update in place. A field absent from news is not
 * managed and never shows as a change.
 */
export function diffFields(
  olds: Record<string, any>,
  news: Record<string, any>,
  fields: { update: string[]; replaceOn: string[]; normalize?: (field: string, value: any) => any; deleteBeforeReplace?: boolean },
): pulumi.dynamic.DiffResult {
  const norm = fields.normalize ?? ((_f: string, v: any) => v);
  const changed = (f: string) => news[f] !== undefined && !deepEqual(norm(f, olds[f]), norm(f, news[f]));
  const replaces = fields.replaceOn.filter((f) => news[f] !== undefined && olds[f] !== undefined && changed(f));
  const updates = fields.update.filter(changed);
  return {
    changes: replaces.length + updates.length > 0,
    replaces,
    deleteBeforeReplace: replaces.length > 0 ? (fields.deleteBeforeReplace ?? false) : undefined,
  };
}

/** An error already worded for the user (it names the action); passed through unchanged. */
export class ResourceError extends Error {
  override readonly name = "ResourceError";
}

/**
 * One-line error for the user: what was being done, to what, and what the service said.
 * `hint` adds what to check (e.g. which permission a 403 needs).
 */
export function describeFailure(action: string, err: unknown, hint?: { forbidden?: string; notFound?: string }): Error {
  if (err instanceof ResourceError) return err;
  if (err instanceof ApiError) {
    const said = err.title ?? err.serviceMessage ?? "";
    let line = `${action}: the service answered ${err.status}${said ? ` ${said}` : ""}`;
    if (err.status === 403 && hint?.forbidden) line += ` (${hint.forbidden})`;
    if (err.status === 404 && hint?.notFound) line += ` (${hint.notFound})`;
    if (err.status === 422) line += " (a limit of the service was reached; limits are raised per organization on request)";
    return new ResourceError(line, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ResourceError(`${action}: ${message}`, { cause: err });
}

/** True for an ApiError with the given status. */
export function isStatus(err: unknown, status: number): boolean {
  return err instanceof ApiError && err.status === status;
}

/** Drops keys whose value is undefined: the plugin rejects undefined anywhere in outputs. */
export function definedOnly<T extends Record<string, any>>(obj: T): T {
  const out: Record<string, any> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out as T;
}
