/**
 * The custodian directory CSV rules of the spec ("Custodian directory CSV"), in one place.
 *
 * Shared by the emulator (E5 answers 400 with the same message) and the provider (the
 * CustodianDirectorySync resource refuses a bad CSV at plan time), so this file must not import
 * anything from the emulator.
 *
 * Choices where the spec is silent:
 * - An unknown header is an error naming it (every unknown header, when there are several). The sync overwrites every property of a
 *   person, so a misspelt column ("emial", "deparment") silently dropped would blank that
 *   property for everyone; refusing is the only safe answer.
 * - A header named twice is an error (which column wins would be a guess).
 * - A column with an empty header name is dropped when all its cells are blank (spreadsheets
 *   export trailing commas) and is an error otherwise.
 * - Two rows with the same email (compared case-insensitively) are an error naming both rows:
 *   the sync matches people by email, so the result would depend on row order.
 * - A row whose cells are all blank is skipped: it is not a person.
 * - A row with more or fewer cells than the header is an error (a short row would blank the
 *   missing properties).
 * - `email` must look like an address (one `@`, text either side, no spaces); other columns are
 *   free text. Dates must be yyyy-MM-dd and a real calendar date.
 * - Row numbers count CSV records with the header as row 1 (a quoted value may span several
 *   text lines; empty lines are not records).
 */
import { parse } from "csv-parse/sync";

/**
 * Largest CSV the service takes: "190MB". Read as 190,000,000 bytes, the smaller of the two usual
 * readings (the other is 190 * 1024 * 1024 = 199,229,440), so that a file the provider accepts
 * at plan time is accepted by the service under either reading. Checked on the UTF-8 byte length.
 */
export const MAX_CSV_BYTES = 190_000_000;

/** The supported columns: CSV header name (lowercase) to property name, in the spec's order. */
export const CUSTODIAN_COLUMNS = {
  email: "email",
  "business phone": "businessPhone",
  "company name": "companyName",
  "user principal name": "userPrincipalName",
  "employee start date": "employeeStartDate",
  "employee end date": "employeeEndDate",
  "manager name": "managerName",
  "manager email": "managerEmail",
  "mobile phone": "mobilePhone",
  role: "role",
  "employee type": "employeeType",
  department: "department",
  "fax number": "faxNumber",
  "office location": "officeLocation",
  "other emails": "otherEmails",
  "preferred language": "preferredLanguage",
  notes: "notes",
  name: "name",
  "first name": "firstName",
  "middle name": "middleName",
  "last name": "lastName",
} as const;

/** Headers the service recognizes but ignores for now; their columns are dropped. */
export const IGNORED_CUSTODIAN_COLUMNS: readonly string[] = ["employee id", "identities", "my site", "preferred data location"];

/** A CSV header name of a supported column. */
export type CustodianColumn = keyof typeof CUSTODIAN_COLUMNS;
/** A property of a custodian (camelCase). */
export type CustodianProperty = (typeof CUSTODIAN_COLUMNS)[CustodianColumn];

const DATE_PROPERTIES: ReadonlySet<CustodianProperty> = new Set(["employeeStartDate", "employeeEndDate"]);
const NAME_PARTS = ["firstName", "middleName", "lastName"] as const;

/**
 * One person as the sync stores them: every property present, null when the CSV left it empty
 * (the sync overwrites, so an absent property is empty after the update). `name` is the result
 * of the name rule.
 */
export type Custodian = { [K in CustodianProperty]: string | null } & { email: string };

/** A person to render into a CSV: every property optional. */
export type CustodianInput = { [K in CustodianProperty]?: string | null };

/** Options of parseCustodianCsv. */
export interface ParseCustodianCsvOptions {
  /** Size limit in bytes; MAX_CSV_BYTES unless a test needs a smaller one. */
  maxBytes?: number;
}

/** The result of parsing: the people to sync, and the principal names of those ignored. */
export interface ParsedCustodians {
  people: Custodian[];
  /** Principal names of people with a user principal name but no email (the service reports them). */
  ignored: string[];
}

/** A CSV that breaks one of the rules; the message names the row and the rule. */
export class CustodianCsvError extends Error {
  override readonly name = "CustodianCsvError";
  constructor(
    /** Record number, the header being row 1; 0 for a rule about the whole file (its size). */
    readonly row: number,
    /** The rule broken, in a few words, e.g. "date must be yyyy-MM-dd". */
    readonly rule: string,
    /** The header of the offending column, when one column is at fault. */
    readonly column?: string,
  ) {
    super(`custodian CSV ${row === 0 ? "file" : `row ${row}`}${column ? `, column '${column}'` : ""}: ${rule}`);
  }
}

function byteLength(input: string | Uint8Array): number {
  return typeof input === "string" ? Buffer.byteLength(input, "utf8") : input.byteLength;
}

/** True for a real calendar date written yyyy-MM-dd. */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

function looksLikeEmail(value: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(value);
}

/** One record of a CSV: its cells and its row number (the header being row 1). */
export interface CsvRecord {
  record: string[];
  info: { records: number };
}

/**
 * The records of a CSV read as the custodian rules read them: a byte-order mark dropped, cells
 * trimmed, empty lines skipped, rows of any length. Throws CustodianCsvError for a malformed CSV
 * and for a file with no header row.
 */
export function readCsvRecords(input: string | Uint8Array): CsvRecord[] {
  let records: CsvRecord[];
  try {
    // trim: whitespace around a quoted value is not an error; callers trim values again
    // because csv-parse keeps the whitespace inside quotes.
    records = parse(input, {
      bom: true,
      trim: true,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
    }) as unknown as CsvRecord[];
  } catch (err: unknown) {
    // csv-parse's errors carry how many records it read before the bad one.
    const { records: read, message } = (err ?? {}) as { records?: unknown; message?: string };
    const row = typeof read === "number" ? read + 1 : 0;
    throw new CustodianCsvError(row, `not a well-formed CSV (${message ?? String(err)})`);
  }
  if (records.length === 0) throw new CustodianCsvError(1, "the file has no header row");
  return records;
}

/** Parses a custodian directory CSV and applies every rule of the spec; throws CustodianCsvError. */
export function parseCustodianCsv(input: string | Uint8Array, opts: ParseCustodianCsvOptions = {}): ParsedCustodians {
  const maxBytes = opts.maxBytes ?? MAX_CSV_BYTES;
  const size = byteLength(input);
  if (size > maxBytes) {
    throw new CustodianCsvError(0, `the file is ${size} bytes, over the maximum of ${maxBytes} bytes (190MB)`);
  }

  const records = readCsvRecords(input);

  // Header: lowercased and matched against the supported properties.
  const header = records[0]!.record.map((h) => h.trim().toLowerCase());
  const columns: (CustodianProperty | null)[] = []; // null: dropped
  const seen = new Map<string, number>();
  const unknown: string[] = [];
  header.forEach((name, i) => {
    if (name !== "" && seen.has(name)) throw new CustodianCsvError(1, `header '${name}' appears twice`, name);
    seen.set(name, i);
    if (Object.hasOwn(CUSTODIAN_COLUMNS, name)) columns.push(CUSTODIAN_COLUMNS[name as CustodianColumn]);
    else if (IGNORED_CUSTODIAN_COLUMNS.includes(name) || name === "") columns.push(null);
    else unknown.push(name);
  });
  // Every unknown header at once: a file exported with other column names would otherwise be fixed one refusal at a time.
  if (unknown.length > 0) {
    const names = unknown.map((n) => `'${n}'`).join(", ");
    throw new CustodianCsvError(
      1,
      `unknown header${unknown.length > 1 ? "s" : ""} ${names} (supported: ${Object.keys(CUSTODIAN_COLUMNS).join(", ")}; ignored: ${IGNORED_CUSTODIAN_COLUMNS.join(", ")})`,
      unknown.length === 1 ? unknown[0] : undefined,
    );
  }
  if (!columns.includes("email") && !columns.includes("userPrincipalName")) {
    throw new CustodianCsvError(1, "the header has neither 'email' nor 'user principal name'");
  }

  const people: Custodian[] = [];
  const ignored: string[] = [];
  const rowOfEmail = new Map<string, number>();

  for (const { record, info } of records.slice(1)) {
    const row = info.records;
    const cells = record.map((c) => {
      const v = c.trim();
      return v === "" ? null : v;
    });
    if (cells.every((c) => c === null)) continue;
    if (cells.length !== header.length) {
      throw new CustodianCsvError(row, `the row has ${cells.length} cells but the header has ${header.length}`);
    }

    const person = Object.fromEntries(Object.values(CUSTODIAN_COLUMNS).map((p) => [p, null])) as Record<CustodianProperty, string | null>;
    cells.forEach((value, i) => {
      const property = columns[i] ?? null;
      if (property === null) {
        if (header[i] === "" && value !== null) {
          throw new CustodianCsvError(row, `a value stands in column ${i + 1}, which has no header name`);
        }
        return;
      }
      if (value !== null && DATE_PROPERTIES.has(property) && !isCalendarDate(value)) {
        throw new CustodianCsvError(row, `date '${value}' must be a real date written yyyy-MM-dd`, header[i]);
      }
      person[property] = value;
    });

    // Name rule: any of first/middle/last present -> they form the name; otherwise 'name'.
    const parts = NAME_PARTS.map((p) => person[p]).filter((v): v is string => v !== null);
    if (parts.length > 0) person.name = parts.join(" ");

    if (person.email === null) {
      if (person.userPrincipalName === null) {
        throw new CustodianCsvError(row, "a person needs an 'email' or a 'user principal name'");
      }
      ignored.push(person.userPrincipalName);
      continue;
    }
    if (!looksLikeEmail(person.email)) {
      throw new CustodianCsvError(row, `'${person.email}' is not an email address`, "email");
    }
    const key = person.email.toLowerCase();
    const first = rowOfEmail.get(key);
    if (first !== undefined) {
      throw new CustodianCsvError(row, `email '${person.email}' already appears on row ${first} (people are matched by email)`, "email");
    }
    rowOfEmail.set(key, row);
    people.push(person as Custodian);
  }
  return { people, ignored };
}

function quoteCell(value: string | null | undefined): string {
  if (value === null || value === undefined) return "";
  // Quote when the value holds a delimiter, a quote, a line break, or whitespace the parser would trim.
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * Renders people as the CSV the sync uploads: every supported column in the spec's order,
 * people sorted by email (then principal name), values quoted where needed, LF line ends.
 * The same input always gives the same bytes, so a plan shows no change when nothing changed.
 */
export function renderCustodianCsv(people: readonly CustodianInput[]): string {
  const headers = Object.keys(CUSTODIAN_COLUMNS) as CustodianColumn[];
  const key = (p: CustodianInput) => `${(p.email ?? "").toLowerCase()}\u0000${(p.userPrincipalName ?? "").toLowerCase()}`;
  const sorted = [...people].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const lines = [headers.join(",")];
  for (const p of sorted) lines.push(headers.map((h) => quoteCell(p[CUSTODIAN_COLUMNS[h]])).join(","));
  return lines.join("\n") + "\n";
}
