/** CSV output of the reports (access matrix, billing summary): the same access or bill gives the same bytes. */

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or a carriage return
 * first: CSV injection) gets a leading `'`, which spreadsheets show as text. A plain number
 * (`-3`, `+1.5`) is left alone. Names set in the web application reach these reports, so a name
 * like `=HYPERLINK(...)` must not become a live formula in a reviewer's spreadsheet. The
 * custodian CSV sent to the service is not a report and is never changed this way.
 */
export function neutralizeFormula(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) && !/^[+-]?\d+(\.\d+)?$/.test(cell) ? `'${cell}` : cell;
}

/** One CSV line of a report: formulas neutralized, fields quoted when they hold a comma, quote, CR or LF (RFC 4180). */
export function csvLine(fields: readonly string[]): string {
  return fields
    .map(neutralizeFormula)
    .map((f) => (/[",\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f))
    .join(",");
}
