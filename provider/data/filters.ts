/** The filters list data sources apply after every page is read. */

/** Name filters shared by list data sources. */
export interface NameFilter {
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
}

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
