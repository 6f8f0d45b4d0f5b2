/**
 * Where settings come from. Pulumi serializes a dynamic provider into state, so nothing here may
 * be captured by a provider object: a run's settings come from its Configure (stack config,
 * secrets decrypted; resources/support/run.ts keeps them for the run), a program's from its
 * config, and both fall back to environment variables read at call time. Every setting is one row
 * of SETTINGS: its config key, its environment variable and its rule.
 */
import * as pulumiLog from "@pulumi/pulumi/log";
import * as pulumiConfig from "@pulumi/pulumi/runtime/config";
import * as path from "node:path";
import { OpenApiError } from "../contract/openapi";
import { getClient, type ClientOptions, type ReviewAdminClient } from "./client";
import { routeTableFor } from "./client/routeTables";
import { insecureHttpHost } from "./client/security";

/** The settings every resource and data source uses. */
export interface Settings {
  /** API key; a secret. Stack config `reviewadmin:apiKey` or REVIEWADMIN_API_KEY. */
  apiKey: string;
  /** Base URL of the region's API, e.g. https://api.example.com. `reviewadmin:baseUrl` or REVIEWADMIN_BASE_URL. */
  baseUrl: string;
  /** Client-side rate, default 25 (the service's limit). `reviewadmin:requestsPerSecond` or REVIEWADMIN_REQUESTS_PER_SECOND. */
  requestsPerSecond?: number;
  /** Longest time for one attempt, the whole answer included, default 30 (a part upload gets 1 s more per 64 KiB). `reviewadmin:requestTimeoutSeconds` or REVIEWADMIN_REQUEST_TIMEOUT_SECONDS. */
  requestTimeoutSeconds?: number;
  /** Sends per request at most, retries included, default 5. `reviewadmin:maxAttempts` or REVIEWADMIN_MAX_ATTEMPTS. */
  maxAttempts?: number;
  /** Longest time one API call may take, retries and waits included (queueing for the rate limit not), default 60. `reviewadmin:deadlineSeconds` or REVIEWADMIN_DEADLINE_SECONDS. */
  deadlineSeconds?: number;
  /** `debug`: one line per request and per retry (key redacted). `reviewadmin:log` or REVIEWADMIN_LOG. */
  log?: "debug" | "off";
  /**
   * Hosts besides loopback that may be reached over plain http: the explicit opt-in for a test
   * emulator in another container (e.g. `emulator`), announced by a warning whenever used.
   * Comma-separated. `reviewadmin:insecureHttpHosts` or REVIEWADMIN_INSECURE_HTTP_HOSTS.
   */
  insecureHttpHosts?: string[];
  /**
   * The vendor's OpenAPI 3.x document (JSON or YAML file; a relative path is read from the
   * directory Pulumi runs in, the project's): each operation's method and path come from it,
   * matched by operationId. Read and checked once per process, when the setting is read: a
   * document that lacks an operation or serves one in a way that cannot be mapped fails the run
   * with one line naming each. Held here as an absolute path. `reviewadmin:openapi` or REVIEWADMIN_OPENAPI.
   */
  openapi?: string;
  /** How many days ahead `expiringSoon` outputs and preview warnings look for access that ends, default 14. `reviewadmin:expiringSoonDays` or REVIEWADMIN_EXPIRING_SOON_DAYS. */
  expiringSoonDays?: number;
}

/** Stack config namespace. */
export const CONFIG_NAMESPACE = "reviewadmin";

type Key = keyof Settings;
interface SettingRule {
  env: string;
  /** Reads the text of config or environment; throws a message naming the rule. */
  parse: (text: string) => Settings[Key];
}

const text = (t: string) => t;
const positiveNumber = (t: string) => {
  const n = Number(t);
  if (!(n > 0) || !Number.isFinite(n)) throw new Error(`must be a positive number, got '${t}'`);
  return n;
};
const positiveInteger = (t: string) => {
  const n = positiveNumber(t);
  if (!Number.isInteger(n)) throw new Error(`must be a positive integer, got '${t}'`);
  return n;
};
const logLevel = (t: string) => {
  const v = t.trim().toLowerCase();
  if (v !== "debug" && v !== "off" && v !== "") throw new Error(`must be "debug" or "off", got '${t}'`);
  return v === "debug" ? "debug" : "off";
};

const hostList = (t: string) => {
  const hosts = t
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
  if (hosts.length === 0) throw new Error(`must name at least one host, got '${t}'`);
  return hosts.map(insecureHttpHost);
};

/**
 * An OpenAPI document's path, as an absolute path, once its routes have been read and checked
 * (routeTableFor reads a file once per process); the message names every operation it cannot serve.
 */
const openapiDocument = (t: string) => {
  const file = path.resolve(t.trim());
  try {
    routeTableFor(file);
  } catch (err) {
    if (!(err instanceof OpenApiError)) throw err;
    const why = err.problems.length ? `${err.reason}: ${err.problems.join("; ")}` : err.reason;
    throw new Error(
      `names ${t.trim()}, which cannot be used: ${why}. Compare it with the built-in routes: npx --no-install pulumi-reviewadmin routes --openapi ${t.trim()}`,
      {
        cause: err,
      },
    );
  }
  return file;
};

/** Every setting: its environment variable and its rule. The config key is `reviewadmin:<name>`. */
export const SETTINGS: Record<Key, SettingRule> = {
  apiKey: { env: "REVIEWADMIN_API_KEY", parse: text },
  baseUrl: { env: "REVIEWADMIN_BASE_URL", parse: text },
  requestsPerSecond: { env: "REVIEWADMIN_REQUESTS_PER_SECOND", parse: positiveNumber },
  requestTimeoutSeconds: { env: "REVIEWADMIN_REQUEST_TIMEOUT_SECONDS", parse: positiveNumber },
  maxAttempts: { env: "REVIEWADMIN_MAX_ATTEMPTS", parse: positiveInteger },
  deadlineSeconds: { env: "REVIEWADMIN_DEADLINE_SECONDS", parse: positiveNumber },
  log: { env: "REVIEWADMIN_LOG", parse: logLevel },
  insecureHttpHosts: { env: "REVIEWADMIN_INSECURE_HTTP_HOSTS", parse: hostList },
  openapi: { env: "REVIEWADMIN_OPENAPI", parse: openapiDocument },
  expiringSoonDays: { env: "REVIEWADMIN_EXPIRING_SOON_DAYS", parse: positiveInteger },
};

/** A setting that broke its rule, named by where it came from. */
export class SettingsError extends Error {
  override readonly name = "SettingsError";
}

function parseSetting(key: Key, raw: string, where: string): Settings[Key] {
  try {
    return SETTINGS[key].parse(raw);
  } catch (err) {
    throw new SettingsError(`reviewadmin: ${where} ${(err as Error).message}`);
  }
}

/** Reads the `reviewadmin:*` keys from a config getter (the plugin's Config or pulumi.Config); throws SettingsError for a bad value. */
export function settingsFromConfig(get: (key: string) => string | undefined): Partial<Settings> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(SETTINGS) as Key[]) {
    const raw = get(key);
    if (raw !== undefined && raw !== "") out[key] = parseSetting(key, raw, `config ${CONFIG_NAMESPACE}:${key}`);
  }
  return out as Partial<Settings>;
}

function fromEnvironment(): Partial<Settings> {
  const out: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(SETTINGS) as [Key, SettingRule][]) {
    const raw = process.env[rule.env];
    if (raw !== undefined && raw !== "") out[key] = parseSetting(key, raw, `environment variable ${rule.env}`);
  }
  return out as Partial<Settings>;
}

/**
 * Settings from `given` (a run's Configure, a program's config, a script's options), then the
 * environment variables; throws naming both places when the key or base URL is missing.
 */
export function resolveSettings(given?: Partial<Settings>): Settings {
  const merged = { ...fromEnvironment(), ...definedOf(given ?? {}) } as Partial<Settings>;
  if (!merged.apiKey) {
    throw new SettingsError(
      "reviewadmin: no API key: set it with `pulumi config set --secret reviewadmin:apiKey <key>` or the REVIEWADMIN_API_KEY environment variable",
    );
  }
  if (!merged.baseUrl) {
    throw new SettingsError(
      "reviewadmin: no base URL (keys are per region): set `pulumi config set reviewadmin:baseUrl https://...` or REVIEWADMIN_BASE_URL",
    );
  }
  if (merged.requestsPerSecond !== undefined && !(merged.requestsPerSecond > 0)) {
    throw new SettingsError(`reviewadmin: requestsPerSecond must be a positive number, got ${merged.requestsPerSecond}`);
  }
  return merged as Settings;
}

function definedOf<T extends object>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Writes debug lines where a run shows them: the Pulumi CLI's output in a program or the plugin, the console in a script. */
function debugLine(line: string): void {
  void pulumiLog.info(line);
}

/** Writes a warning where a run shows it: the Pulumi CLI's output in a program or the plugin, the console in a script. */
function warningLine(line: string): void {
  void pulumiLog.warn(line);
}

/** The client options of `s`: the key, the base URL, pacing, limits, and where its debug lines and warnings go. */
export function clientOptions(s: Settings): ClientOptions {
  return {
    apiKey: s.apiKey,
    baseUrl: s.baseUrl,
    requestsPerSecond: s.requestsPerSecond,
    timeoutMs: s.requestTimeoutSeconds !== undefined ? s.requestTimeoutSeconds * 1000 : undefined,
    maxAttempts: s.maxAttempts,
    deadlineMs: s.deadlineSeconds !== undefined ? s.deadlineSeconds * 1000 : undefined,
    logger: debugLogger(s),
    insecureHttpHosts: s.insecureHttpHosts,
    openapi: s.openapi,
    warn: warningLine,
  };
}

/** Writes debug lines where a run shows them when `s` turns the debug switch (`reviewadmin:log` / REVIEWADMIN_LOG = debug) on. */
export function debugLogger(s: Settings): ((line: string) => void) | undefined {
  return s.log === "debug" ? debugLine : undefined;
}

/**
 * The process-wide client for `given` settings over the environment (getClient: one pool and one
 * pacer per key): what a program's data sources and a script use. A provider run has its own (run.ts).
 */
export function currentClient(given?: Partial<Settings>): ReviewAdminClient {
  return getClient(clientOptions(resolveSettings(given)));
}

/**
 * What is wrong with a stack's config for this package: `reviewadmin:*` keys it does not know (a
 * typo would otherwise be ignored), and an API key stored as plain config (it belongs in
 * `--secret` config, encrypted in the stack file). One message per problem.
 */
export function configWarnings(all: Record<string, string>, isSecret: (key: string) => boolean): string[] {
  const known = Object.keys(SETTINGS);
  const out: string[] = [];
  for (const full of Object.keys(all)) {
    const [namespace, key] = full.split(":");
    if (namespace !== CONFIG_NAMESPACE || key === undefined || known.includes(key)) continue;
    out.push(
      `config ${full} is not a setting of pulumi-reviewadmin (known: ${known.map((k) => `${CONFIG_NAMESPACE}:${k}`).join(", ")}); it is ignored`,
    );
  }
  const keyName = `${CONFIG_NAMESPACE}:apiKey`;
  if (all[keyName] !== undefined && !isSecret(keyName)) {
    out.push(
      `config ${keyName} is stored in plain text in the stack's config file; store it encrypted: pulumi config set --secret ${keyName} <key>`,
    );
  }
  return out;
}

const warned = Symbol.for("pulumi-reviewadmin.configWarnings");

/** In a Pulumi program, once per process: logs configWarnings of the stack's config. */
export function warnAboutConfig(): void {
  // eslint-disable-next-line no-restricted-syntax -- process-wide: a program process warns about its stack's config once, whichever copy of the package asks.
  const g = globalThis as unknown as Record<symbol, boolean>;
  if (g[warned]) return;
  g[warned] = true;
  // isConfigSecret is exported by the SDK's runtime but missing from its type declarations.
  const isSecret = (pulumiConfig as unknown as { isConfigSecret?: (k: string) => boolean }).isConfigSecret;
  try {
    for (const line of configWarnings(pulumiConfig.allConfig(), isSecret ?? (() => true))) void pulumiLog.warn(line);
  } catch {
    // Not in a Pulumi program: nothing to warn about.
  }
}
