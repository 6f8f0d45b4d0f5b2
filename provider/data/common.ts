/**
 * What every data source shares: where the client comes from (explicit client, explicit
 * settings, `reviewadmin:*` Pulumi config, the plugin's configured settings, environment
 * variables), the one-line error every failed read becomes, the generic Output form, and the
 * small filters applied after reading.
 *
 * Data sources are plain async functions: they work in a Pulumi program and in a plain Node
 * script alike. Nothing here touches Pulumi's runtime unless a Pulumi program is running.
 */
import * as pulumi from "@pulumi/pulumi";
import type { OperationId } from "../../contract";
import { ParameterError } from "../../contract";
import { ApiError, type ReviewAdminClient } from "../client";
import { CONFIG_NAMESPACE, currentClient, settingsFromConfig, type Settings } from "../settings";

/** Options every data source takes (both the Promise and the Output form). */
export interface DataSourceOptions {
  /** Use this client as is; wins over everything else. */
  client?: ReviewAdminClient;
  /** Settings that win over Pulumi config and the environment (fields left out fall through). */
  settings?: Partial<Settings>;
  /** Aborts the read (every request of it) when signalled. */
  signal?: AbortSignal;
}

/** Options of the Output forms: DataSourceOptions plus resources the read must wait for. */
export interface DataSourceOutputOptions extends DataSourceOptions {
  /** The read starts only after these resources are created or updated (like an invoke's dependsOn). */
  dependsOn?: pulumi.Resource | pulumi.Resource[];
}

/** The Output form's argument type: every field may be a pulumi Input. */
export type OutputArgs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/**
 * The `reviewadmin:*` values of the running Pulumi program's config (apiKey, baseUrl,
 * requestsPerSecond); an empty object outside a program or when nothing is set. Never throws.
 */
export function settingsFromPulumiConfig(): Partial<Settings> {
  try {
    const config = new pulumi.Config(CONFIG_NAMESPACE);
    const found = settingsFromConfig((key) => config.get(key));
    return dropUndefined(found);
  } catch {
    return {};
  }
}

/**
 * The client a data source uses: `opts.client`, else one built from `opts.settings`, then
 * Pulumi config `reviewadmin:*`, then the plugin's configured settings, then the environment
 * (REVIEWADMIN_API_KEY, REVIEWADMIN_BASE_URL, REVIEWADMIN_REQUESTS_PER_SECOND). Throws a
 * one-line error naming where to set a missing key or base URL.
 */
export function clientFor(dataSource: string, opts?: DataSourceOptions): ReviewAdminClient {
  if (opts?.client) return opts.client;
  try {
    return currentClient({ ...settingsFromPulumiConfig(), ...dropUndefined(opts?.settings ?? {}) });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new DataSourceError(dataSource, `${dataSource}: ${message}`, err);
  }
}

/** The per-request options a data source passes to the client (its abort signal only). */
export function io(opts?: DataSourceOptions): { signal?: AbortSignal } {
  return opts?.signal ? { signal: opts.signal } : {};
}

function dropUndefined<T extends object>(obj: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

// ------------------------------------------------------------------------------------------------
// Errors
// ------------------------------------------------------------------------------------------------

/**
 * A failed read, as one line: which data source, what it was reading, and what went wrong
 * (the status and title for an answer of the service, plus the role a 403 needs). The original
 * error is `cause`; `status` and `operationId` are copied from it when it is an ApiError.
 */
export class DataSourceError extends Error {
  override readonly name = "DataSourceError";
  /** HTTP status of the service's answer, when there was one. */
  readonly status?: number;
  /** The operation id (GetOrganizationUsers, ...) of the failed request, when known. */
  readonly operationId?: string;
  /** The data source function, e.g. `getOrganizationMembers`. */
  readonly dataSource: string;

  constructor(dataSource: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.dataSource = dataSource;
    if (cause instanceof ApiError) {
      this.status = cause.status;
      this.operationId = cause.operationId;
    } else if (cause instanceof ParameterError && cause.operationId) {
      this.operationId = cause.operationId;
    }
  }
}

/** Role descriptions from the spec's Access columns, by operation; `{org}`/`{db}` are filled in. */
const ACCESS: Partial<Record<OperationId, string>> = {
  GetDatabases: "explicit DB_ADMIN on a database, or org admin of its owning organization",
  GetCurrentUser: "any valid key",
  GetOrganizations: "any valid key",
  GetProjects: "access to the projects",
  GetOrganization: "membership of organization {org}, or parent org admin",
  GetOrganizationBilling: "org admin of organization {org}, or parent org admin",
  GetParentOrganizationBilling: "org admin of organization {org}, or parent org admin",
  GetOrganizationDatabases: "org admin of organization {org}, or parent org admin",
  GetOrganizationEvents: "org admin of organization {org}, or parent org admin",
  GetOrganizationEventsAfter: "org admin of organization {org}, or parent org admin",
  GetRecentOrganizationEvents: "org admin of organization {org}, or parent org admin",
  GetOrganizationInvitations: "org admin of organization {org} (the spec does not state it; org admin is assumed)",
  GetOrganizationProjects: "org admin of organization {org}, or parent org admin",
  GetOrganizationUserIdentifiers: "org admin of organization {org}",
  GetOrganizationUsers: "org admin of organization {org}",
  GetOrganizationUser: "org admin of organization {org}",
  GetDatabaseUsers:
    "DB_ADMIN on database {db}, or org admin of its owning organization when the database allows org admin access (orgAdminAccess)",
  GetDatabaseUser:
    "DB_ADMIN on database {db}, or org admin of its owning organization when the database allows org admin access (orgAdminAccess)",
  GetDatabase: "DB_ADMIN on database {db}, or org admin or parent org admin of its owning organization",
  GetDatabaseBilling: "DB_ADMIN on database {db}, or org admin or parent org admin of its owning organization",
  GetDatabaseProjects: "DB_ADMIN on database {db}, or org admin or parent org admin of its owning organization",
  GetDatabaseSize: "DB_ADMIN on database {db}, or org admin or parent org admin of its owning organization",
};

/** The role an operation needs, from the spec's Access column (ids filled in when given). */
export function requiredRole(operationId: string, ids: { orgId?: number; databaseId?: number } = {}): string | undefined {
  const text = ACCESS[operationId as OperationId];
  if (!text) return undefined;
  return text.replace("{org}", ids.orgId !== undefined ? String(ids.orgId) : "the organization").replace(
    "{db}",
    ids.databaseId !== undefined ? String(ids.databaseId) : "the database",
  );
}

/**
 * Turns any failure of a read into a DataSourceError with one line:
 * `<dataSource>: reading <what>: <status> <title> (<hint>)`.
 */
export function readFailure(dataSource: string, what: string, err: unknown, ids: { orgId?: number; databaseId?: number } = {}): DataSourceError {
  if (err instanceof DataSourceError) return err;
  const prefix = `${dataSource}: reading ${what}`;
  if (err instanceof ApiError) {
    const said = oneLine(err.title ?? err.serviceMessage ?? "");
    let line = `${prefix}: the service answered ${err.status}${said ? ` ${said}` : ""} (${err.method} ${err.path})`;
    if (err.status === 403) {
      const role = requiredRole(err.operationId, ids);
      line += role ? `; this needs ${role}, which the API key in use lacks` : "; the API key in use lacks the permission";
    } else if (err.status === 401) {
      line += "; the API key is missing or invalid: check reviewadmin:apiKey / REVIEWADMIN_API_KEY and that it belongs to this region's baseUrl";
    } else if (err.status === 404) {
      line += "; check the id";
    } else if (err.status === 429) {
      line += "; rate limited even after retries: lower reviewadmin:requestsPerSecond";
    }
    return new DataSourceError(dataSource, line, err);
  }
  if (err instanceof ParameterError) {
    return new DataSourceError(dataSource, `${prefix}: invalid argument '${err.parameter}': ${err.rule}`, err);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new DataSourceError(dataSource, `${prefix}: ${oneLine(message, 400)}`, err);
}

/** Runs `fn`, rethrowing any failure as readFailure(...). */
export async function reading<T>(
  dataSource: string,
  what: string,
  ids: { orgId?: number; databaseId?: number },
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw readFailure(dataSource, what, err, ids);
  }
}

/** An argument error, thrown before anything is sent. */
export function argumentError(dataSource: string, message: string): DataSourceError {
  return new DataSourceError(dataSource, `${dataSource}: ${message}`);
}

function oneLine(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max - 1) + "…" : flat;
}

/** Checks a required positive integer id argument; throws an argument error naming it. */
export function requireId(dataSource: string, name: string, value: unknown): number {
  if (typeof value === "string" && /^\d+$/.test(value.trim())) value = Number(value);
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
    throw argumentError(dataSource, `'${name}' must be a positive integer id, got ${JSON.stringify(value)}`);
  }
  return value;
}

// ------------------------------------------------------------------------------------------------
// The Output form
// ------------------------------------------------------------------------------------------------

/**
 * The Output form of a data source whose Promise form takes `A` and gives `R`: the arguments
 * may be pulumi Inputs, and may be left out when every argument is optional.
 */
export type OutputFn<A, R> = {} extends A
  ? (args?: OutputArgs<A>, opts?: DataSourceOutputOptions) => pulumi.Output<Plain<R>>
  : (args: OutputArgs<A>, opts?: DataSourceOutputOptions) => pulumi.Output<Plain<R>>;

/**
 * `T` without index signatures, deeply. Entities pass unknown fields through (loose objects),
 * which would make every lifted Output property `unknown`; the Output forms are typed with the
 * named fields only, so `getOrganizationOutput(...).name` is an `Output<string>`.
 */
export type Plain<T> = T extends readonly (infer E)[]
  ? Plain<E>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : number extends K ? never : K]: Plain<T[K]> }
    : T;

/**
 * Makes the Output form of a data source: resolves Input arguments (and waits for
 * `opts.dependsOn`) before calling the Promise form. During a preview, unknown arguments give an
 * unknown result rather than a read. A failed read fails the Output like a failed invoke.
 */
export function outputForm<A, R>(fn: (args: A, opts?: DataSourceOptions) => Promise<R>): OutputFn<A, R> {
  const form = (args?: OutputArgs<A>, opts?: DataSourceOutputOptions): pulumi.Output<Plain<R>> => {
    const deps = opts?.dependsOn === undefined ? [] : Array.isArray(opts.dependsOn) ? opts.dependsOn : [opts.dependsOn];
    const waits: pulumi.Output<unknown>[] = deps.map((r) =>
      pulumi.CustomResource.isInstance(r) ? (r as pulumi.CustomResource).id : r.urn,
    );
    const { dependsOn: _ignored, ...rest } = opts ?? {};
    const resolvedArgs = pulumi.output((args ?? {}) as pulumi.Input<object>) as pulumi.Output<unknown>;
    const ready = waits.length === 0 ? resolvedArgs : pulumi.all([resolvedArgs, ...waits]).apply((all) => all[0]);
    return ready.apply((resolved) => fn(resolved as A, rest)) as unknown as pulumi.Output<Plain<R>>;
  };
  return form as OutputFn<A, R>;
}

// ------------------------------------------------------------------------------------------------
// Filters and small helpers
// ------------------------------------------------------------------------------------------------

/** Name filters shared by list data sources. */
export interface NameFilter {
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
}

/** True when `names` (any of them) pass the filter; an absent filter passes everything. */
export function matchesName(filter: NameFilter, ...names: (string | null | undefined)[]): boolean {
  const present = names.filter((n): n is string => typeof n === "string");
  if (filter.name !== undefined && !present.some((n) => n === filter.name)) return false;
  if (filter.nameContains !== undefined) {
    const needle = filter.nameContains.toLowerCase();
    if (!present.some((n) => n.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/** True when `want` is undefined or equals `value`. */
export function matchesFlag(want: boolean | undefined, value: boolean | undefined): boolean {
  return want === undefined || want === value;
}

/** The page size every list read asks for (the spec's maximum). */
export const PAGE_SIZE = 200;

/** Compares strings by code unit (locale-independent, so orderings are the same on every machine). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Runs `fn` over `items` with at most `concurrency` at a time, keeping the input order in the result. */
export async function mapLimit<T, U>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<U>): Promise<U[]> {
  const results = new Array<U>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** One CSV line: fields quoted when they hold a comma, quote, CR or LF (RFC 4180). */
export function csvLine(fields: readonly string[]): string {
  return fields.map((f) => (/[",\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(",");
}
