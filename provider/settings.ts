/**
 * Where credentials come from. Pulumi serializes a dynamic provider into state, so nothing here
 * may be captured by a provider object: settings live in a process-wide slot filled by the
 * plugin's `configure` (stack config, secrets decrypted) and fall back to environment variables
 * read at call time.
 */
import { getClient, type ReviewAdminClient } from "./client";

/** The settings every resource and data source needs. */
export interface Settings {
  /** API key; a secret. Stack config `reviewadmin:apiKey` or REVIEWADMIN_API_KEY. */
  apiKey: string;
  /** Base URL of the region's API, e.g. https://api.example.com. Stack config `reviewadmin:baseUrl` or REVIEWADMIN_BASE_URL. */
  baseUrl: string;
  /** Client-side rate, default 25 (the service's limit). `reviewadmin:requestsPerSecond` or REVIEWADMIN_REQUESTS_PER_SECOND. */
  requestsPerSecond?: number;
}

/** Stack config namespace. */
export const CONFIG_NAMESPACE = "reviewadmin";

// Symbol.for: one slot per process even if two copies of this package are loaded.
const SLOT = Symbol.for("pulumi-reviewadmin.settings");
type Slot = { settings?: Partial<Settings> };
function slot(): Slot {
  const g = globalThis as unknown as Record<symbol, Slot>;
  return (g[SLOT] ??= {});
}

/** Records settings from stack config (called from the plugin's configure); missing keys fall back to the environment. */
export function setConfiguredSettings(settings: Partial<Settings>): void {
  slot().settings = settings;
}

/** Reads the `reviewadmin:*` keys from a config getter (the plugin's Config or pulumi.Config). */
export function settingsFromConfig(get: (key: string) => string | undefined): Partial<Settings> {
  const rps = get("requestsPerSecond");
  return {
    apiKey: get("apiKey") || undefined,
    baseUrl: get("baseUrl") || undefined,
    requestsPerSecond: rps ? Number(rps) : undefined,
  };
}

/** Settings from configure, then environment variables; throws naming both places when one is missing. */
export function resolveSettings(override?: Partial<Settings>): Settings {
  const configured = slot().settings ?? {};
  const env = process.env;
  const apiKey = override?.apiKey ?? configured.apiKey ?? env.REVIEWADMIN_API_KEY;
  const baseUrl = override?.baseUrl ?? configured.baseUrl ?? env.REVIEWADMIN_BASE_URL;
  const rpsText = env.REVIEWADMIN_REQUESTS_PER_SECOND;
  const requestsPerSecond = override?.requestsPerSecond ?? configured.requestsPerSecond ?? (rpsText ? Number(rpsText) : undefined);
  if (!apiKey) {
    throw new Error(
      "reviewadmin: no API key: set it with `pulumi config set --secret reviewadmin:apiKey <key>` or the REVIEWADMIN_API_KEY environment variable",
    );
  }
  if (!baseUrl) {
    throw new Error(
      "reviewadmin: no base URL (keys are per region): set `pulumi config set reviewadmin:baseUrl https://...` or REVIEWADMIN_BASE_URL",
    );
  }
  if (requestsPerSecond !== undefined && !(requestsPerSecond > 0)) {
    throw new Error(`reviewadmin: requestsPerSecond must be a positive number, got ${requestsPerSecond}`);
  }
  return { apiKey, baseUrl, requestsPerSecond };
}

/** The process-wide client for the current settings (one pool and one token bucket per key). */
export function currentClient(override?: Partial<Settings>): ReviewAdminClient {
  const s = resolveSettings(override);
  return getClient({ apiKey: s.apiKey, baseUrl: s.baseUrl, requestsPerSecond: s.requestsPerSecond });
}
