/**
 * API key text: how the emulator mints keys and reads their parts. A key has the service's shape
 * (contract/apiKey.ts: `<prefix>.<ID>.<SECRET>`); the ID is the key id the admin UI shows. Which
 * user or organization a key acts for is the store's business (KeyRecord).
 */
import { drawApiKey, drawnKeyShape, keyIdOf as apiKeyIdOf } from "../../contract/apiKey";

/** The fixed literal prefix of every key the emulator issues. */
export const KEY_PREFIX = "ra";
/** Shape of a key the emulator issues: its prefix, an 8-character ID and a 56-character SECRET. */
export const KEY_SHAPE = drawnKeyShape(KEY_PREFIX);

/** A new key drawn from `random`, drawing again while `taken(key)` says it is in use. */
export function mintKeyText(random: () => number, taken: (key: string) => boolean): string {
  for (;;) {
    const key = drawApiKey(KEY_PREFIX, random);
    if (!taken(key)) return key;
  }
}

/** The key id of a key the emulator minted (contract/apiKey.ts's keyIdOf; a minted key always has one). */
export function keyIdOf(key: string): string {
  const id = apiKeyIdOf(key);
  if (id === undefined) throw new Error("not a key the emulator minted");
  return id;
}
