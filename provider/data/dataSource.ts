/**
 * What every data source is made of (defineDataSource.ts puts it together): its arguments
 * parsed by its schema (./args.ts), its client (explicit client, explicit settings,
 * `reviewadmin:*` Pulumi config, the plugin's configured settings, environment variables), its
 * failures as one DataSourceError (./dataSourceError.ts), and its Promise and Output forms' types.
 * Free of zod: published declarations import this module.
 *
 * Data sources are plain async functions: they work in a Pulumi program and in a plain Node
 * script alike. Nothing here touches Pulumi's runtime unless a Pulumi program is running.
 */
import type * as pulumi from "@pulumi/pulumi";
import { Config } from "@pulumi/pulumi/config";
import { all, Output, output } from "@pulumi/pulumi/output";
import { CustomResource } from "@pulumi/pulumi/resource";
import type { CallOptions, ReviewAdminClient } from "../client";
import { CONFIG_NAMESPACE, currentClient, settingsFromConfig, SettingsError, type Settings } from "../settings";
import { definedOnly } from "../util";
import { DataSourceError } from "./dataSourceError";

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
    const config = new Config(CONFIG_NAMESPACE);
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
// The Promise form
// ------------------------------------------------------------------------------------------------

/**
 * The Promise form of a data source that takes `A` and gives `R`; the arguments may be left out
 * when every one is optional.
 */
// `{} extends A` is true exactly when every argument is optional.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type DataSourceFn<A, R> = {} extends A
  ? (args?: A, opts?: DataSourceOptions) => Promise<R>
  : (args: A, opts?: DataSourceOptions) => Promise<R>;

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
    const waits: pulumi.Output<unknown>[] = deps.map((r) => (CustomResource.isInstance(r) ? (r as CustomResource).id : r.urn));
    const { dependsOn: _ignored, ...rest } = opts ?? {};
    const resolvedArgs = output(mapTopLevel(args ?? {}, boxDate) as pulumi.Input<object>) as pulumi.Output<unknown>;
    const ready = waits.length === 0 ? resolvedArgs : all([resolvedArgs, ...waits]).apply((all) => all[0]);
    return ready.apply((resolved) => fn(mapTopLevel(resolved, unboxDate) as A, rest)) as unknown as pulumi.Output<Plain<R>>;
  };
  return form as OutputFn<A, R>;
}

// pulumi.output() copies every object it meets into a plain one, so a Date argument (a time of
// getActivityEvents) would reach the Promise form as `{}`. Functions pass through it untouched: a
// top-level Date, given as is or through a Promise or an Output, travels as a function returning
// it, told from anything else by `dateBoxes`.
// eslint-disable-next-line no-restricted-syntax -- process-wide: a mark on the boxes this module makes; weak, so it holds nothing.
const dateBoxes = new WeakSet<() => Date>();

function boxDate(value: unknown): unknown {
  if (Output.isInstance(value)) return value.apply(boxDate);
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
  if (args === null || typeof args !== "object" || Array.isArray(args) || Output.isInstance(args)) return args;
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, fn(v)]));
}
