/** The filters list data sources apply after every page is read, and the argument schema of the name filters they share. */
import { z } from "zod";
import type { NameFilter } from "./argTypes.generated";

// Other data sources spread `.shape` into their schemas.
/**
 * Name filters shared by list data sources.
 * @outputType NameFilter
 */
export const nameFilterArgs = z.object({
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name: z.string().optional(),
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains: z.string().optional(),
});

/** True when `names` (any of them) pass the filter; an absent filter passes everything. */
export function matchesName(filter: NameFilter, ...names: (string | null | undefined)[]): boolean {
  const present = names.filter((n): n is string => typeof n === "string");
  if (filter.name !== undefined && !present.some((n) => n === filter.name)) return false;
  if (filter.nameContains !== undefined) {
    const needle = filter.nameContains.toLowerCase();
    if (!present.some((n) => n.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/** True when `want` is undefined or equals `value`. */
export function matchesFlag(want: boolean | undefined, value: boolean | undefined): boolean {
  return want === undefined || want === value;
}
