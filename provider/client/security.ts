/**
 * The two rules that keep the API key safe: where the client may send requests (https, or plain
 * http to this machine only, or to a test emulator's host named by explicit opt-in), and how the
 * key is kept out of text and map keys.
 */
import { createHash } from "node:crypto";
import { secretOf } from "../../contract/apiKey";
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
 * The parts of a key that must never show: the whole key and, for a key in the contract's shape
 * (contract/apiKey.ts), its SECRET alone (a server may echo it on its own). The ID is what the
 * admin UI shows to identify a key, so it may stay.
 */
function partsToHide(apiKey: string): string[] {
  // A key out of the documented shape may still be a real key of a shape we do not know: its
  // last dot-separated segment, when long enough to be a secret, is hidden on its own too.
  const last = apiKey.split(".").at(-1) ?? "";
  const secret = secretOf(apiKey) ?? (apiKey.includes(".") && last.length >= 8 ? last : undefined);
  return secret === undefined ? [apiKey] : [apiKey, secret];
}

/** JSON's short escapes of the characters a key may hold (`\"`, `\\`, `\/`). */
const JSON_SHORT_ESCAPES = new Set(['"', "\\", "/"]);

/**
 * One character of a secret as a server may send it: itself, a JSON `\u00XX` escape or a URL
 * `%XX` escape of either letter case (the pattern is case-insensitive, which covers hex digits).
 */
function charPattern(c: string): string {
  const forms = new Set([c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")]);
  if (JSON_SHORT_ESCAPES.has(c)) forms.add(`\\\\\\${c}`);
  for (const v of new Set([c.toLowerCase(), c.toUpperCase()])) {
    const hex = v.charCodeAt(0).toString(16).padStart(2, "0");
    forms.add(`\\\\u00${hex}`);
    forms.add(`%${hex}`);
  }
  return `(?:${[...forms].join("|")})`;
}

/**
 * Finds the key, or its secret segment, in text and in parsed answers: written plainly, with
 * JSON `\u` escapes or URL %-escapes (a hostile server may echo the key in any of these), in
 * any letter case. Made once per client; it holds the key, so it stays private to its owner.
 */
export class KeyScrubber {
  readonly #pattern: RegExp | undefined;

  constructor(apiKey: string) {
    const alternatives = apiKey ? partsToHide(apiKey).map((s) => [...s].map(charPattern).join("")) : [];
    this.#pattern = alternatives.length ? new RegExp(alternatives.join("|"), "gi") : undefined;
  }

  /** True when `text` holds the key or its secret segment in any of the forms above. */
  finds(text: string): boolean {
    return this.#pattern !== undefined && text.search(this.#pattern) >= 0;
  }

  /** `text` with every occurrence of the key or its secret segment replaced by REDACTED. */
  text(text: string): string {
    return this.#pattern ? text.replace(this.#pattern, REDACTED) : text;
  }

  /**
   * A copy of a parsed JSON value with every string and every object key redacted: what an
   * answer carries to callers, state and outputs once `\u` escapes have been decoded.
   */
  value(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (typeof value === "object" && value !== null) {
      // fromEntries defines own properties, so a "__proto__" key stays data.
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.text(k), this.value(v)]));
    }
    return value;
  }
}

/**
 * Removes every occurrence of the key, or of its secret segment, in any letter case and plain
 * or escaped (see KeyScrubber), from `text`.
 */
export function redact(text: string, apiKey: string): string {
  return new KeyScrubber(apiKey).text(text);
}
