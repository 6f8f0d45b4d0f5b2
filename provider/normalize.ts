/**
 * Values as they are stored and compared, so that order and case never show as a change:
 * sets sorted, emails lower-cased, identifiers sorted by abbreviation with only their two fields.
 */

// The grant model's rules (contract/grants.ts), shared by the EthicalWall resource and the access review.
export { normalizeEmail, wallCovers } from "../contract/grants";
import { compareText } from "./util";

/** A user identifier as the provider stores it. */
export interface Identifier {
  abbreviation: string;
  label: string;
}

/**
 * Sorted copy of a set-like list without repeats: strings by code unit, anything else by its JSON
 * text (so numbers as text, as states have always stored them), the same on every machine.
 */
export function sortedSet<T>(items: readonly T[]): T[] {
  const key = (x: T) => (typeof x === "string" ? x : JSON.stringify(x));
  return [...new Set(items)].sort((a, b) => compareText(key(a), key(b)));
}

/** True when two lists hold the same items, whatever their order. */
export function sameSet<T>(a: readonly T[], b: readonly T[]): boolean {
  // Stored and declared lists are both kept sorted: the same items in the same order need no sort.
  if (a.length === b.length && a.every((x, i) => x === b[i])) return true;
  return JSON.stringify(sortedSet(a)) === JSON.stringify(sortedSet(b));
}

/** Identifiers sorted by abbreviation with only the two known fields. */
export function normalizeIdentifiers(ids: readonly Identifier[]): Identifier[] {
  return ids.map((i) => ({ abbreviation: i.abbreviation, label: i.label })).sort((a, b) => compareText(a.abbreviation, b.abbreviation));
}

/** True when two lists of identifiers hold the same, whatever their order. */
export function sameIdentifiers(a: readonly Identifier[], b: readonly Identifier[]): boolean {
  if (a.length === b.length && a.every((x, i) => x.abbreviation === b[i]!.abbreviation && x.label === b[i]!.label)) return true;
  return JSON.stringify(normalizeIdentifiers(a)) === JSON.stringify(normalizeIdentifiers(b));
}
