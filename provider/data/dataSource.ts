/**
 * What every data source is made of: where its client comes from (explicit client, explicit
 * settings, `reviewadmin:*` Pulumi config, the plugin's configured settings, environment
 * variables), the one error its failures become (worded by provider/failures.ts), and the
 * generic Output form. Arguments are parsed by each data source's schema (./args.ts).
 *
 * Data sources are plain async functions: they work in a Pulumi program and in a plain Node
 * script alike. Nothing here touches Pulumi's runtime unless a Pulumi program is running.
 */
import * as pulumi from "@pulumi/pulumi";
import { accessText, ParameterError, routes, type RouteDef } from "../../contract";
import { ApiError, type CallOptions, type ReviewAdminClient } from "../client";
import { describeCause } from "../failures";
import { CONFIG_NAMESPACE, currentClient, settingsFromConfig, SettingsError, type Settings } from "../settings";
import { definedOnly } from "../util";

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
 * requestsPerSecond, ...); an empty object outside a program or when nothing is set. Throws the
 * SettingsError of a value that breaks its rule (an OpenAPI document that cannot be used must
 * not fall back to the built-in routes).
 */
export function settingsFromPulumiConfig(): Partial<Settings> {
  try {
    const config = new pulumi.Config(CONFIG_NAMESPACE);
    return definedOnly(settingsFromConfig((key) => config.get(key)));
  } catch (err) {
    if (err instanceof SettingsError) throw err;
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
    return currentClient({ ...settingsFromPulumiConfig(), ...definedOnly(opts?.settings ?? {}) });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new DataSourceError(dataSource, `${dataSource}: ${message}`, err);
  }
}

/** The per-request options a data source passes to the client: its abort signal only. */
export function callOptions(opts?: DataSourceOptions): CallOptions {
  return opts?.signal ? { signal: opts.signal } : {};
}

// ------------------------------------------------------------------------------------------------
// Errors
// ------------------------------------------------------------------------------------------------

/**
 * A failed read, as one line: `<dataSource>: reading <what>: <cause>`, the cause worded by
 * provider/failures.ts (the service's status and title, and what to check: for a 403 the access
 * the route needs). The original error is `cause`; `status` and `operationId` are copied from
 * it when it is an ApiError.
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

/** Who may call an operation, from the route table's `access` column with the given ids filled in; undefined for an unknown operation id. */
export function requiredRole(operationId: string, ids: { organizationId?: number; databaseId?: number } = {}): string | undefined {
  const route = (routes as Record<string, RouteDef>)[operationId];
  return route ? accessText(route, { orgId: ids.organizationId, databaseId: ids.databaseId }) : undefined;
}

/** Turns any failure of a read into the DataSourceError `<dataSource>: reading <what>: <cause>`. */
export function readFailure(dataSource: string, what: string, err: unknown): DataSourceError {
  if (err instanceof DataSourceError) return err;
  return new DataSourceError(dataSource, `${dataSource}: reading ${what}: ${describeCause(err)}`, err);
}

/** Runs `fn`, rethrowing any failure as readFailure(...). */
export async function reading<T>(dataSource: string, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw readFailure(dataSource, what, err);
  }
}

/** An argument error, thrown before anything is sent: `<dataSource>: <message>` (`cause`: the schema's error, when there is one). */
export function argumentError(dataSource: string, message: string, cause?: unknown): DataSourceError {
  return new DataSourceError(dataSource, `${dataSource}: ${message}`, cause);
}

// ------------------------------------------------------------------------------------------------
// The Output form
// ------------------------------------------------------------------------------------------------

/**
 * The Output form of a data source whose Promise form takes `A` and gives `R`: the arguments
 * may be pulumi Inputs, and may be left out when every argument is optional.
 */
// `{} extends A` is true exactly when every argument is optional.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
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
    const resolvedArgs = pulumi.output(mapTopLevel(args ?? {}, boxDate) as pulumi.Input<object>) as pulumi.Output<unknown>;
    const ready = waits.length === 0 ? resolvedArgs : pulumi.all([resolvedArgs, ...waits]).apply((all) => all[0]);
    return ready.apply((resolved) => fn(mapTopLevel(resolved, unboxDate) as A, rest)) as unknown as pulumi.Output<Plain<R>>;
  };
  return form as OutputFn<A, R>;
}

// pulumi.output() copies every object it meets into a plain one, so a Date argument (a time of
// getActivityEvents) would reach the Promise form as `{}`. Functions pass through it untouched: a
// top-level Date, given as is or through a Promise or an Output, travels as a function returning
// it, told from anything else by `dateBoxes`.
const dateBoxes = new WeakSet<() => Date>();

function boxDate(value: unknown): unknown {
  if (pulumi.Output.isInstance(value)) return value.apply(boxDate);
  if (value instanceof Promise) return value.then(boxDate);
  if (!(value instanceof Date)) return value;
  const box = () => value;
  dateBoxes.add(box);
  return box;
}

function unboxDate(value: unknown): unknown {
  return typeof value === "function" && dateBoxes.has(value as () => Date) ? (value as () => Date)() : value;
}

/** `args` with `fn` applied to each top-level value; anything but a plain object as it is (the schema refuses it). */
function mapTopLevel(args: unknown, fn: (value: unknown) => unknown): unknown {
  if (args === null || typeof args !== "object" || Array.isArray(args) || pulumi.Output.isInstance(args)) return args;
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, fn(v)]));
}
