/**
 * The calendar month every billing data source speaks of, in a file of its own below billing.ts
 * (which publishes it) and billingMonths.ts (which does the arithmetic), so neither imports the
 * other for it; it holds no zod, so published declarations may name it.
 */

/** A calendar month. */
export interface YearMonth {
  /** Four-digit year. */
  year: number;
  /** 1..12. */
  month: number;
}
