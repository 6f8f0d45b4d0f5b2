/**
 * API key text: how the emulator mints keys and reads their parts. A key looks like the
 * service's (contract: `<prefix>.<8 upper-case letters/digits>.<56 upper-case letters/digits>`);
 * the middle segment is the key id the admin UI shows. Which user or organization a key acts
 * for is the store's business (KeyRecord).
 */

/** The fixed literal prefix of every key the emulator issues. */
export const KEY_PREFIX = "ra";
const KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
/** Shape of a key: prefix, 8 upper-case letters/digits, 56 upper-case letters/digits. */
export const KEY_SHAPE = /^ra\.[A-Z0-9]{8}\.[A-Z0-9]{56}$/;

function randomSegment(random: () => number, length: number): string {
  let s = "";
  for (let i = 0; i < length; i++) s += KEY_ALPHABET[Math.floor(random() * KEY_ALPHABET.length)];
  return s;
}

/** A new key drawn from `random`, drawing again while `taken(key)` says it is in use. */
export function mintKeyText(random: () => number, taken: (key: string) => boolean): string {
  for (;;) {
    const key = `${KEY_PREFIX}.${randomSegment(random, 8)}.${randomSegment(random, 56)}`;
    if (!taken(key)) return key;
  }
}

/** The key id of a key: its middle segment, what the admin UI shows. */
export function keyIdOf(key: string): string {
  return key.split(".")[1];
}
