/**
 * From an export of an identity provider or HR system to the custodian CSV the service takes.
 *
 * The service reads a CSV whose headers are its own property names (contract/custodianCsv.ts).
 * Exports name their columns otherwise (Entra's `mail`, Google's `Email Address [Required]`,
 * Workday's `Email - Primary Work`), so their rows would all be refused or ignored. Here a
 * mapping (a preset, plus `columns` naming a header per property) picks the columns, and the
 * people are rendered with renderCustodianCsv: what is sent is always a CSV in the service's own
 * format, deterministic (sorted by email), so reordering the export is no change.
 *
 * The export is read leniently where exports are normally untidy, and strictly where a guess
 * would change what the service stores:
 * - A row with neither an email nor a user principal name (a shared mailbox, a room, a worker
 *   without a work address) is left out of the upload, since the service refuses the whole file
 *   for one such row; the report names it. A row with a principal name but no email is sent and
 *   the service ignores it (reported back in the resource's `ignored` output).
 * - A row repeating another row's email with the same values is sent once; with other values it
 *   is an error naming both rows (which row wins would be a guess).
 * - A header named in `columns` that the file lacks is an error (a typo would otherwise leave a
 *   property empty for everyone, and the sync overwrites); a preset's header the file lacks is
 *   only reported, since one preset covers several layouts of an export.
 * - Dates are converted to yyyy-MM-dd from the declared `dateFormat`; a date that does not fit
 *   is an error naming the row.
 */
import {
  CUSTODIAN_COLUMNS,
  CustodianCsvError,
  isCalendarDate,
  parseCustodianCsv,
  readCsvRecords,
  renderCustodianCsv,
  type CustodianColumn,
  type CustodianInput,
  type CustodianProperty,
} from "../../contract/custodianCsv";
import { CUSTODIAN_PRESETS, type CustodianPreset } from "./presets";

/** How a file writes dates; yyyy-MM-dd is always accepted too. A time or zone after the date is dropped. */
export const DATE_FORMATS = ["yyyy-MM-dd", "MM/dd/yyyy", "dd/MM/yyyy", "dd.MM.yyyy"] as const;
/** One of DATE_FORMATS. */
export type DateFormat = (typeof DATE_FORMATS)[number];

/**
 * For each property (camelCase, as in `people`), the header that fills it; a list means each row
 * takes the first non-blank value among those columns; null means the property stays empty.
 */
export type ColumnMapping = Partial<Record<CustodianProperty, string | readonly string[] | null>>;

/** How to read an export. With none of these fields, columns named like the service's headers map to themselves. */
export interface ExportMapping {
  preset?: CustodianPreset;
  columns?: ColumnMapping;
  dateFormat?: DateFormat;
}

/** A row of the file, named for people: its record number (header = row 1) and who it is. */
export interface RowRef {
  row: number;
  /** The person's name, principal name, or "row N" when the row has neither. */
  who: string;
}

/** What the mapping did with a file, for the plan-time report. */
export interface MappingReport {
  /** The file's header row, as written. */
  headers: string[];
  /** Rows holding a person (blank rows are not counted). */
  rows: number;
  /** Rows sent with an email: the people the sync will store. */
  withEmail: number;
  /** Each filled property and the header(s) filling it, in the service's column order. */
  used: { property: CustodianProperty; headers: string[] }[];
  /** Headers of the file that fill nothing: their values are not sent. */
  unmapped: string[];
  /** Properties of the preset none of whose headers the file has. */
  absent: { property: CustodianProperty; headers: readonly string[] }[];
  /** Rows with a principal name but no email: sent, and ignored by the service. */
  principalOnly: (RowRef & { userPrincipalName: string })[];
  /** Rows with neither an email nor a principal name: left out of the upload. */
  leftOut: RowRef[];
  /** Rows repeating an earlier row (same email, same values): sent once. */
  duplicates: (RowRef & { firstRow: number; email: string })[];
  /** Columns (other than the one mapped to email) most of whose values look like email addresses. */
  emailLikeColumns: { header: string; share: number }[];
}

/** The CSV to send and the report of how it was made. */
export interface MappedExport {
  csv: string;
  report: MappingReport;
}

const PROPERTIES = Object.entries(CUSTODIAN_COLUMNS) as [CustodianColumn, CustodianProperty][];
const DATE_PROPERTIES: ReadonlySet<CustodianProperty> = new Set(["employeeStartDate", "employeeEndDate"]);
/** An address alone in its cell: not one inside a notation such as Microsoft's `SMTP:a@b.c` proxy addresses. */
const looksLikeEmail = (v: string) => /^[^\s@:;,<>]+@[^\s@:;,<>]+\.[^\s@:;,<>]+$/.test(v);

/** `value` as yyyy-MM-dd read with `format` (or already yyyy-MM-dd), or undefined when it is neither. */
export function toIsoDate(value: string, format: DateFormat = "yyyy-MM-dd"): string | undefined {
  const pad = (n: string) => n.padStart(2, "0");
  // A time or a zone may follow the date (Workday writes 2019-03-04-08:00, spreadsheets add 0:00).
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*|Z|[+-]\d{2}:?\d{2})?$/.exec(value);
  let y: string | undefined, m: string | undefined, d: string | undefined;
  if (iso) [, y, m, d] = iso;
  else if (format !== "yyyy-MM-dd") {
    const sep = format === "dd.MM.yyyy" ? "\\." : "/";
    const hit = new RegExp(`^(\\d{1,2})${sep}(\\d{1,2})${sep}(\\d{4})(?:[T ].*)?$`).exec(value);
    if (hit) [y, m, d] = format === "MM/dd/yyyy" ? [hit[3], hit[1], hit[2]] : [hit[3], hit[2], hit[1]];
  }
  if (y === undefined || m === undefined || d === undefined) return undefined;
  const out = `${y}-${pad(m)}-${pad(d)}`;
  return isCalendarDate(out) ? out : undefined;
}

function whoOf(p: CustodianInput, row: number): string {
  const parts = [p.firstName, p.middleName, p.lastName].filter((v): v is string => !!v);
  return parts.length ? parts.join(" ") : (p.name ?? p.userPrincipalName ?? `row ${row}`);
}

/** Reads the export and returns the CSV to send; throws CustodianCsvError naming the row (and the source column) for what cannot be mapped. */
export function mapCustodianExport(input: string | Uint8Array, mapping: ExportMapping = {}): MappedExport {
  const records = readCsvRecords(input);
  const headers = records[0]!.record.map((h) => h.trim());
  const columns = resolveColumns(headers, mapping);
  const format = mapping.dateFormat ?? "yyyy-MM-dd";

  const report: MappingReport = {
    headers,
    rows: 0,
    withEmail: 0,
    used: [],
    unmapped: [],
    absent: columns.absent,
    principalOnly: [],
    leftOut: [],
    duplicates: [],
    emailLikeColumns: [],
  };
  const filled = new Set([...columns.byProperty.values()].flat());
  report.unmapped = headers.filter((h, i) => h !== "" && !filled.has(i));
  for (const [, property] of PROPERTIES) {
    const cols = columns.byProperty.get(property);
    if (cols) report.used.push({ property, headers: cols.map((i) => headers[i]!) });
  }

  const people: CustodianInput[] = [];
  const byEmail = new Map<string, { row: number; person: CustodianInput }>();
  const emailLike = headers.map(() => 0);
  for (const { record, info } of records.slice(1)) {
    const row = info.records;
    const cells = record.map((c) => c.trim());
    if (cells.every((c) => c === "")) continue;
    if (cells.length !== headers.length) {
      throw new CustodianCsvError(row, `the row has ${cells.length} cells but the header has ${headers.length}`);
    }
    report.rows += 1;
    cells.forEach((c, i) => (emailLike[i]! += looksLikeEmail(c) ? 1 : 0));

    const person: CustodianInput = {};
    for (const [property, cols] of columns.byProperty) {
      const at = cols.find((i) => cells[i] !== "");
      if (at === undefined) continue;
      let value = cells[at]!;
      if (DATE_PROPERTIES.has(property)) {
        const iso = toIsoDate(value, format);
        if (iso === undefined) {
          throw new CustodianCsvError(
            row,
            `date '${value}' is not written ${format}${format === "yyyy-MM-dd" ? "" : " (nor yyyy-MM-dd)"}: set dateFormat to how the file writes dates (${DATE_FORMATS.join(", ")})`,
            headers[at],
          );
        }
        value = iso;
      }
      if (property === "email" && !/^[^\s@]+@[^\s@]+$/.test(value)) {
        throw new CustodianCsvError(row, `'${value}' is not an email address (the email comes from column '${headers[at]}')`, headers[at]);
      }
      person[property] = value;
    }

    const who = whoOf(person, row);
    if (!person.email) {
      if (person.userPrincipalName) report.principalOnly.push({ row, who, userPrincipalName: person.userPrincipalName });
      else {
        report.leftOut.push({ row, who });
        continue;
      }
      people.push(person);
      continue;
    }
    const key = person.email.toLowerCase();
    const first = byEmail.get(key);
    if (first) {
      const differs = PROPERTIES.map(([, p]) => p).filter((p) => (first.person[p] ?? null) !== (person[p] ?? null));
      if (differs.length === 0) {
        report.duplicates.push({ row, who, firstRow: first.row, email: person.email });
        continue;
      }
      const d = differs[0]!;
      throw new CustodianCsvError(
        row,
        `email '${person.email}' already appears on row ${first.row} with other values (${d}: '${first.person[d] ?? ""}' there, '${person[d] ?? ""}' here); people are matched by email, so which row wins would be a guess: remove one`,
        headers[columns.byProperty.get("email")![0]!],
      );
    }
    byEmail.set(key, { row, person });
    people.push(person);
  }
  report.withEmail = byEmail.size;
  const emailCols = new Set(columns.byProperty.get("email") ?? []);
  report.emailLikeColumns = headers
    .map((header, i) => ({ header, share: report.rows ? emailLike[i]! / report.rows : 0, i }))
    .filter((c) => c.header !== "" && !emailCols.has(c.i) && c.share >= 0.5)
    .sort((a, b) => b.share - a.share)
    .map(({ header, share }) => ({ header, share }));

  const csv = renderCustodianCsv(people);
  // What is sent must pass the service's own rules; a failure here is a bug of this mapping.
  parseCustodianCsv(csv);
  return { csv, report };
}

/** Which columns fill which property (see ColumnMapping), and the preset's properties the file lacks. */
function resolveColumns(
  headers: string[],
  mapping: ExportMapping,
): { byProperty: Map<CustodianProperty, number[]>; absent: MappingReport["absent"] } {
  const positions = new Map<string, number[]>();
  headers.forEach((h, i) => {
    const key = h.toLowerCase();
    if (key !== "") positions.set(key, [...(positions.get(key) ?? []), i]);
  });
  const lookup = (header: string): number | undefined => {
    const at = positions.get(header.trim().toLowerCase());
    if (at && at.length > 1)
      throw new CustodianCsvError(1, `header '${header}' appears ${at.length} times, so which column is meant would be a guess`, header);
    return at?.[0];
  };
  const preset = mapping.preset ? CUSTODIAN_PRESETS[mapping.preset] : undefined;
  const byProperty = new Map<CustodianProperty, number[]>();
  const absent: MappingReport["absent"] = [];
  for (const [serviceHeader, property] of PROPERTIES) {
    const named = mapping.columns?.[property];
    if (named === null) continue;
    if (named !== undefined) {
      const list = typeof named === "string" ? [named] : named;
      byProperty.set(
        property,
        list.map((h) => {
          const at = lookup(h);
          if (at === undefined) {
            throw new CustodianCsvError(
              1,
              `columns.${property} names '${h}', which is not a header of the file (its headers: ${headers.filter((x) => x).join(", ")})`,
              h,
            );
          }
          return at;
        }),
      );
      continue;
    }
    const candidates = preset?.columns[property];
    const hit = candidates?.find((h) => lookup(h) !== undefined);
    if (hit !== undefined) {
      byProperty.set(property, [lookup(hit)!]);
      continue;
    }
    if (candidates) absent.push({ property, headers: candidates });
    // A column already named like the service's header means the same thing.
    const same = lookup(serviceHeader);
    if (same !== undefined) byProperty.set(property, [same]);
  }
  return { byProperty, absent };
}
