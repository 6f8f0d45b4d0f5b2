/**
 * The plan-time verdict on a custodian file: how many rows will not be synced, said loudly.
 *
 * More than half the rows without an email fails the check (so `pulumi preview` and `pulumi up`
 * stop before anything is sent) unless the program sets `allowIgnoredRows: true`. A warning alone
 * would scroll past in CI, where `pulumi up --yes` shows no preview to a person; such a file is
 * nearly always an export whose email column is not mapped (an Entra download's `mail`, the
 * Microsoft 365 export that has no email column at all), and syncing it would report success
 * while the directory stays as it was. Fewer ignored rows are normal (guests, service accounts,
 * rooms) and are a warning naming them.
 */
import type { MappingReport, RowRef } from "./mapping";
import { CUSTODIAN_PRESETS, presetOfHeaders, type CustodianPreset } from "./presets";

/** Share of rows without an email above which the check fails (unless allowed). */
export const IGNORED_ROWS_LIMIT = 0.5;
/** Rows named in one message at most; the rest are counted. */
const NAMED = 5;

/** What the check does with a file: fail, or go on with warnings and a summary line. */
export interface IgnoredRowsVerdict {
  failure?: string;
  warnings: string[];
  /** How the columns were mapped (mapped files only), for an info line. */
  summary?: string;
}

function rowList<T extends RowRef>(refs: readonly T[], detail: (r: T) => string = (r) => r.who): string {
  const named = refs.slice(0, NAMED).map((r) => (r.who === `row ${r.row}` ? r.who : `row ${r.row} (${detail(r)})`));
  return refs.length > NAMED ? `${named.join(", ")} and ${refs.length - NAMED} more` : named.join(", ");
}

/** The check's verdict on `report`; `input` is the inputs field holding the file ("csv", "csvPath"), `label` names the resource. */
export function judgeCustodianFile(
  report: MappingReport,
  opts: { input: string; label: string; preset?: CustodianPreset; mapped: boolean; allowIgnoredRows?: boolean },
): IgnoredRowsVerdict {
  const notSynced = [...report.principalOnly, ...report.leftOut].sort((a, b) => a.row - b.row);
  const share = report.rows ? notSynced.length / report.rows : 0;
  const warnings: string[] = [];
  if (share > IGNORED_ROWS_LIMIT && !opts.allowIgnoredRows) {
    const pct = Math.round(share * 100);
    return {
      failure:
        `${notSynced.length} of ${report.rows} rows (${pct}%) have no email and would not be synced (${rowList(notSynced)}): ` +
        `a mis-mapped export is the likely cause. ${hintFor(report, opts.preset)} ` +
        `To sync the ${report.withEmail} row${report.withEmail === 1 ? "" : "s"} that ${report.withEmail === 1 ? "has" : "have"} one anyway, set allowIgnoredRows: true.`,
      warnings,
    };
  }
  if (report.principalOnly.length) {
    warnings.push(
      `${opts.label}: ${report.principalOnly.length} of ${report.rows} rows have a user principal name but no email; the service ignores them (the ignored output lists them): ` +
        rowList(report.principalOnly, (r) => (r.who === r.userPrincipalName ? r.who : `${r.who}, ${r.userPrincipalName}`)),
    );
  }
  if (report.leftOut.length) {
    warnings.push(
      `${opts.label}: ${report.leftOut.length} of ${report.rows} rows have neither an email nor a user principal name and are left out of the upload (the service refuses a whole file for one such row): ${rowList(report.leftOut)}`,
    );
  }
  if (report.duplicates.length) {
    warnings.push(
      `${opts.label}: ${report.duplicates.length} row${report.duplicates.length === 1 ? " repeats" : "s repeat"} an earlier row with the same email and values and ${report.duplicates.length === 1 ? "is" : "are"} sent once: ` +
        rowList(report.duplicates, (r) => `${r.email}, as row ${r.firstRow}`),
    );
  }
  const verdict: IgnoredRowsVerdict = { warnings };
  if (opts.mapped) verdict.summary = summaryOf(report, opts);
  return verdict;
}

/** What to do about a file whose rows mostly lack an email. */
function hintFor(report: MappingReport, preset: CustodianPreset | undefined): string {
  // A preset maps every column at once: better than naming the email column alone.
  const guess = presetOfHeaders(report.headers);
  if (guess && guess !== preset) return `The header row looks like a ${CUSTODIAN_PRESETS[guess].title}: set preset: "${guess}".`;
  if (report.emailLikeColumns.length) {
    const cols = report.emailLikeColumns.slice(0, 3).map((c) => `'${c.header}' (${Math.round(c.share * 100)}% of rows)`);
    return `Columns whose values look like email addresses: ${cols.join(", ")}; map one with columns: { email: "${report.emailLikeColumns[0]!.header}" }.`;
  }
  const email = report.used.find((u) => u.property === "email");
  return email
    ? `The email comes from column '${email.headers.join("' or '")}', which is mostly empty: name the right one with columns: { email: "<header>" }.`
    : `No column is mapped to email: name it with columns: { email: "<header>" }, or use a preset (${Object.keys(CUSTODIAN_PRESETS).join(", ")}).`;
}

function summaryOf(report: MappingReport, opts: { label: string; preset?: CustodianPreset }): string {
  const used = report.used.map((u) => `${u.property} <- ${u.headers.join(" | ")}`).join(", ");
  const parts = [
    `${opts.label}: ${report.withEmail} of ${report.rows} rows will be synced${opts.preset ? ` (preset ${opts.preset})` : ""}; columns: ${used || "none"}`,
  ];
  if (report.unmapped.length) parts.push(`not synced (no property maps them): ${report.unmapped.join(", ")}`);
  if (report.absent.length) parts.push(`preset columns this file lacks: ${report.absent.map((a) => a.property).join(", ")}`);
  return parts.join("; ");
}
