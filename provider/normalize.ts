/**
 * Values as they are stored and compared, so that order and case never show as a change:
 * sets sorted, emails lower-cased, identifiers sorted by abbreviation with only their two fields.
 */

/** A user identifier as the provider stores it. */
export interface Identifier {
  abbreviation: string;
  label: string;
}

/** Sorted copy of a set-like list without repeats. */
export function sortedSet<T>(items: readonly T[]): T[] {
  const key = (x: T) => JSON.stringify(x);
  return [...new Set(items)].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** True when two lists hold the same items, whatever their order. */
export function sameSet<T>(a: readonly T[], b: readonly T[]): boolean {
  return JSON.stringify(sortedSet(a)) === JSON.stringify(sortedSet(b));
}

/** Email as stored and compared: trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Identifiers sorted by abbreviation with only the two known fields. */
export function normalizeIdentifiers(ids: readonly Identifier[]): Identifier[] {
  return ids.map((i) => ({ abbreviation: i.abbreviation, label: i.label })).sort((a, b) => a.abbreviation.localeCompare(b.abbreviation));
}

// Until provider/resources/ethicalWall.ts imports it from the contract, where the pack and the CLI read it too.
export { wallCovers } from "../contract/accessRules";
