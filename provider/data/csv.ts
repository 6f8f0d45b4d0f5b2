/** CSV output of the reports (access matrix, billing summary): the same access or bill gives the same bytes. */

/** One CSV line: fields quoted when they hold a comma, quote, CR or LF (RFC 4180). */
export function csvLine(fields: readonly string[]): string {
  return fields.map((f) => (/[",\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(",");
}
