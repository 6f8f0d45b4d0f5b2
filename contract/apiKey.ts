/**
 * The API key's shape, stated once, as the service documents it: `<prefix>.<ID>.<SECRET>`. ID is
 * 8 upper-case letters or digits, what the admin UI shows to identify a key: the one part that may
 * be shown. SECRET is about 56 of the same. The emulator mints keys in this shape, the doctor shows
 * a key's ID by it, and the client's redaction finds the SECRET on its own by it (a server may echo
 * the secret alone). Whatever its shape, the whole key is a secret: a key that does not fit shows
 * nothing and is redacted whole.
 */

/** What an ID and a SECRET are made of: upper-case letters and digits. */
export const API_KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
/** Length of the ID part, exactly. */
export const API_KEY_ID_LENGTH = 8;
/** Length of the SECRET part as the service issues it (the documentation says "~56"). */
export const API_KEY_SECRET_LENGTH = 56;
/**
 * The shortest SECRET read as one: some slack below the issued length, since the documentation
 * says "about", but never so short that redacting it alone would hit ordinary words.
 */
const MIN_SECRET_LENGTH = 16;

const PART = "[A-Z0-9]";

/** A key in the shape; its groups are prefix, ID and SECRET. */
export const API_KEY_SHAPE = new RegExp(`^([A-Za-z0-9]+)\\.(${PART}{${API_KEY_ID_LENGTH}})\\.(${PART}{${MIN_SECRET_LENGTH},})$`);

/** The shape as messages word it. */
export const API_KEY_SHAPE_TEXT = `<prefix>.<ID>.<SECRET> (ID: ${API_KEY_ID_LENGTH} upper-case letters or digits; SECRET: about ${API_KEY_SECRET_LENGTH} of them)`;

/** The three parts of a key in the shape. */
export interface ApiKeyParts {
  readonly prefix: string;
  /** What the admin UI shows to identify the key; the one part that may be shown. */
  readonly id: string;
  readonly secret: string;
}

/** The parts of `apiKey`, or undefined when it does not have the shape. */
export function apiKeyParts(apiKey: string): ApiKeyParts | undefined {
  const m = API_KEY_SHAPE.exec(apiKey);
  return m ? { prefix: m[1]!, id: m[2]!, secret: m[3]! } : undefined;
}

/** The key's ID (what the admin UI shows), or undefined when the key does not have the shape: then no part of it may be shown. */
export function keyIdOf(apiKey: string): string | undefined {
  return apiKeyParts(apiKey)?.id;
}

/** The key's SECRET part, or undefined when the key does not have the shape. */
export function secretOf(apiKey: string): string | undefined {
  return apiKeyParts(apiKey)?.secret;
}

/** A new key in the shape under `prefix`, its ID and full-length SECRET drawn from `random` (values in [0, 1)). */
export function drawApiKey(prefix: string, random: () => number): string {
  const draw = (length: number) => {
    let s = "";
    for (let i = 0; i < length; i++) s += API_KEY_ALPHABET[Math.floor(random() * API_KEY_ALPHABET.length)];
    return s;
  };
  return `${prefix}.${draw(API_KEY_ID_LENGTH)}.${draw(API_KEY_SECRET_LENGTH)}`;
}

/** Exactly the keys drawApiKey makes under `prefix`: an ID and a SECRET of the issued lengths. */
export function drawnKeyShape(prefix: string): RegExp {
  const literal = prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${literal}\\.${PART}{${API_KEY_ID_LENGTH}}\\.${PART}{${API_KEY_SECRET_LENGTH}}$`);
}
