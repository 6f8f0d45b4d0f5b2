/**
 * The two rules that keep the API key safe: where the client may send requests (https, or plain
 * http to this machine only, or to a test emulator's host named by explicit opt-in), and how the
 * key is kept out of text and map keys.
 */
import { createHash } from "node:crypto";
import { InsecureUrlError } from "./errors";

/** True for hosts that never leave this machine: 127.0.0.0/8, localhost and [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  // URL has already normalized the host: "127.1" reads as "127.0.0.1", IPv6 keeps its brackets.
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * A host name as the insecureHttpHosts setting takes it (`emulator`, `10.0.0.5`, `[fd00::5]`),
 * lower-cased as URL.hostname shows it; throws an Error saying what is wrong with anything else
 * (a URL, a port, a path, a wildcard: each host is named, whole).
 */
export function insecureHttpHost(entry: string): string {
  const text = entry.trim().toLowerCase();
  if (text === "") throw new Error("an empty host name");
  if (text.includes("*")) throw new Error(`'${entry}': no wildcards, name each host`);
  let hostname: string | undefined;
  try {
    hostname = new URL(`http://${text}`).hostname;
  } catch {
    // Not a host: said below.
  }
  if (hostname !== text) throw new Error(`'${entry}' is not a host name (no scheme, port or path: e.g. emulator or 10.0.0.5)`);
  return text;
}

/** True when `url` is plain http to a host that is not loopback: allowed only through insecureHttpHosts, and then announced. */
export function isInsecureHttp(url: URL): boolean {
  return url.protocol === "http:" && !isLoopbackHost(url.hostname);
}

/**
 * Parses `url` and enforces the transport rule: https anywhere, plain http to a loopback host
 * (the emulator and tests) or to a host of `insecureHttpHosts` (the explicit opt-in for a test
 * emulator elsewhere, e.g. in another container; normalized by insecureHttpHost), nothing
 * else; no user:password part. `what` names the URL in the message ("baseUrl", "part URL").
 * The message shows the origin only: a part URL's query is a credential.
 */
export function checkUrl(url: string, what: string, insecureHttpHosts: readonly string[] = []): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InsecureUrlError(`${what} is not a valid absolute URL`);
  }
  if (parsed.username || parsed.password) {
    throw new InsecureUrlError(`${what} must not contain a user name or password`);
  }
  if (parsed.protocol === "https:") return parsed;
  if (parsed.protocol === "http:") {
    if (isLoopbackHost(parsed.hostname) || insecureHttpHosts.includes(parsed.hostname)) return parsed;
    throw new InsecureUrlError(
      `${what} ${parsed.origin} uses plain http to a host that is not loopback; ` +
        `the API key would travel unencrypted. Use https (plain http is accepted only for 127.0.0.0/8, localhost and [::1], ` +
        `and for a test emulator's host named in reviewadmin:insecureHttpHosts or REVIEWADMIN_INSECURE_HTTP_HOSTS).`,
    );
  }
  throw new InsecureUrlError(`${what} must use https (got ${parsed.protocol.replace(/:$/, "")})`);
}

/** SHA-256 of the key, hex: what module-level maps are keyed by, so no map holds the key itself. */
export function keyFingerprint(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("hex");
}

/** Marker put in place of the key wherever it would otherwise appear. */
export const REDACTED = "[REDACTED]";

/**
 * The parts of a key that must never show: the whole key and, for a `<prefix>.<ID>.<SECRET>`
 * key, its secret segment alone (a server may echo it on its own). The ID segment is what the
 * admin UI shows to identify a key, so it may stay.
 */
function secretsOf(apiKey: string): string[] {
  const segments = apiKey.split(".");
  const secret = segments.length >= 3 ? segments[segments.length - 1]! : "";
  return secret.length >= 8 ? [apiKey, secret] : [apiKey];
}

/**
 * Removes every occurrence of the key, or of its secret segment, in any letter case, from
 * `text`. Used on all text the server sends back (a misbehaving server may echo the
 * Authorization header) and on every log line.
 */
export function redact(text: string, apiKey: string): string {
  if (!apiKey) return text;
  let out = text;
  for (const s of secretsOf(apiKey)) out = out.replace(new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi"), REDACTED);
  return out;
}
