/**
 * The cells of the reports people open (the access matrix, the billing summary, the review
 * packet's review.csv and review.md): one rule for CSV, one for Markdown tables. Names set in the
 * web application reach these reports, so no cell may become a formula or break a table.
 */

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or a carriage return
 * first: CSV injection, as OWASP lists the characters) gets a leading `'`, which spreadsheets show
 * as text, so a name like `=HYPERLINK(...)` never becomes a live formula in a reviewer's
 * spreadsheet. A cell that is wholly a plain decimal number (`-3`, `+1.5`) is left alone: a
 * spreadsheet reads it as that number, never as a formula, and quoting it would turn figures
 * into text; anything more after the sign (`-1+cmd|...`, `-3e5`) is neutralized. The custodian
 * CSV sent to the service is not a report and is never changed this way.
 */
export function neutralizeFormula(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) && !/^[+-]?\d+(\.\d+)?$/.test(cell) ? `'${cell}` : cell;
}

/** One CSV line of a report (the same cells give the same bytes): formulas neutralized, fields quoted when they hold a comma, quote, CR or LF (RFC 4180). */
export function csvLine(fields: readonly string[]): string {
  return fields
    .map(neutralizeFormula)
    .map((f) => (/[",\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f))
    .join(",");
}

/** Text safe in a Markdown table cell: backslashes and pipes escaped, line breaks made spaces. */
export function markdownCell(s: string): string {
  return s
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/[\r\n]+/g, " ");
}
