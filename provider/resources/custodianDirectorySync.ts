/**
 * CustodianDirectorySync: the people of a legal-hold custodian directory, synced from typed
 * records or a CSV file (E5). A CSV may be an identity provider's or HR system's export: a
 * preset or `columns` maps its columns to the service's (../custodians/mapping.ts), and the
 * check reports at plan time which rows will not be synced (../custodians/ignoredRows.ts).
 */
import { createHash } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { say } from "./support/messages";
import { z } from "zod";
import {
  CUSTODIAN_COLUMNS,
  CustodianCsvError,
  MAX_CSV_BYTES,
  parseCustodianCsv,
  renderCustodianCsv,
  type CustodianInput,
} from "../../contract/custodianCsv";
import type { ReviewAdminClient } from "../client";
import { DATE_FORMATS, mapCustodianExport, type ColumnMapping, type DateFormat, type MappingReport } from "../custodians/mapping";
import { CUSTODIAN_PRESETS, PRESET_NAMES, presetOfHeaders, type CustodianPreset } from "../custodians/presets";
import { judgeCustodianFile } from "../custodians/ignoredRows";
import { readRegularFile } from "../files";
import { definedOnly } from "../util";
import { idInput } from "./support/inputs";
import { argsMatch, containsUnknown, defineResource, outputsMatch, UNKNOWN, type CheckFailure } from "./support/lifecycle";
import { normalizeEmail } from "../normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";

/** Inputs of a CustodianDirectorySync: exactly one of people, csv and csvPath. */
export interface CustodianDirectorySyncArgs {
  /** The legal-hold directory. Changing it replaces. */
  directoryId: pulumi.Input<number>;
  /** Typed records (camelCase properties, e.g. email, firstName, department), rendered to CSV deterministically. */
  people?: pulumi.Input<pulumi.Input<CustodianInput>[]>;
  /** CSV text. */
  csv?: pulumi.Input<string>;
  /** Path of a CSV file, relative to the program's folder. Its content is hashed at plan time, so an edit shows as a change. */
  csvPath?: pulumi.Input<string>;
  /**
   * `csv`/`csvPath` is an export of this kind: its columns are mapped to the service's
   * (`entra-id`, `okta`, `google-workspace`, `workday`; see docs/custodians.md).
   */
  preset?: pulumi.Input<CustodianPreset>;
  /**
   * For `csv`/`csvPath`: the header filling each property (camelCase, as in `people`), over the
   * preset's; a list takes each row's first non-blank value; null leaves the property empty.
   * Columns named like the service's headers map to themselves. E.g. `{ email: "Mail" }`.
   */
  columns?: pulumi.Input<ColumnMapping>;
  /** For a mapped `csv`/`csvPath`: how its dates are written (default yyyy-MM-dd, always accepted too). */
  dateFormat?: pulumi.Input<DateFormat>;
  /**
   * Sync even when more than half the rows have no email (the check refuses such a file by
   * default: a mis-mapped export is the likely cause). Default false.
   */
  allowIgnoredRows?: pulumi.Input<boolean>;
}

const properties = Object.values(CUSTODIAN_COLUMNS) as [string, ...string[]];
const Person = z.partialRecord(z.enum(properties, { message: `must be one of: ${properties.join(", ")}` }), z.string().nullable());

const Header = z.string().trim().min(1, { message: "must name a header of the file" });
const Columns = z
  .record(z.string(), z.union([Header, z.array(Header).min(1), z.null()], { message: "must be a header, a list of headers, or null" }))
  .superRefine((columns, ctx) => {
    for (const key of Object.keys(columns)) {
      if (!properties.includes(key))
        ctx.addIssue({ code: "custom", path: [key], message: `is not a custodian property (properties: ${properties.join(", ")})` });
    }
  });

const Inputs = z
  .strictObject({
    directoryId: idInput("directory"),
    people: z.array(Person).optional(),
    csv: z.string().optional(),
    csvPath: z.string().min(1).optional(),
    preset: z.enum(PRESET_NAMES, { message: `must be one of: ${PRESET_NAMES.join(", ")}` }).optional(),
    columns: Columns.optional(),
    dateFormat: z.enum(DATE_FORMATS, { message: `must be one of: ${DATE_FORMATS.join(", ")}` }).optional(),
    allowIgnoredRows: z.boolean().optional(),
    // Computed by check from the content, so an edited file shows as a change.
    contentHash: z.string().optional(),
  })
  .refine((v) => [v.people, v.csv, v.csvPath].filter((x) => x !== undefined).length === 1, {
    message: "give exactly one of people, csv and csvPath",
    path: ["people"],
  })
  .refine((v) => v.people === undefined || (v.preset === undefined && v.columns === undefined && v.dateFormat === undefined), {
    message: "preset, columns and dateFormat read an export given as csv or csvPath; people are already typed records",
    path: ["preset"],
  });
type Inputs = z.infer<typeof Inputs>;
argsMatch<CustodianDirectorySyncArgs, Omit<z.input<typeof Inputs>, "contentHash">>(true);

/** What a CustodianDirectorySync stores: what was last sent, and what the service ignored. */
export interface CustodianDirectorySyncState {
  directoryId: number;
  /** SHA-256 of the CSV last sent. */
  contentHash: string;
  /** People in the CSV that was sent. */
  peopleCount: number;
  /** People the service ignored (a user principal name but no email), as it reported them. */
  ignored: string[];
  csvPath?: string;
}

/** The CSV bytes the inputs give, before any mapping. */
function sourceOf(inputs: Inputs): Buffer {
  if (inputs.people) return Buffer.from(renderCustodianCsv(inputs.people as CustodianInput[]), "utf8");
  if (inputs.csv !== undefined) return Buffer.from(inputs.csv, "utf8");
  const limit = `the service takes at most ${MAX_CSV_BYTES} bytes (190MB)`;
  return readRegularFile(inputs.csvPath!, MAX_CSV_BYTES, limit, (reason) => new CustodianCsvError(0, reason));
}

/** True when the CSV is an export to map, not a file in the service's own format. */
const isMapped = (inputs: Inputs) => inputs.preset !== undefined || inputs.columns !== undefined || inputs.dateFormat !== undefined;

/**
 * The CSV to send for the inputs: typed records rendered, a service-format file as it is (its
 * bytes are what the service gets), an export mapped to the service's columns. With `report`,
 * also the report on a file's rows (csv and csvPath). Throws CustodianCsvError for a broken rule.
 */
function prepare(inputs: Inputs, opts: { report: boolean }): { bytes: Buffer; report?: MappingReport } {
  const source = sourceOf(inputs);
  if (inputs.people) return { bytes: source };
  if (isMapped(inputs)) {
    const mapped = mapCustodianExport(source, {
      preset: inputs.preset,
      columns: inputs.columns as ColumnMapping | undefined,
      dateFormat: inputs.dateFormat,
    });
    return { bytes: Buffer.from(mapped.csv, "utf8"), report: mapped.report };
  }
  try {
    parseCustodianCsv(source);
  } catch (err) {
    throw withExportHint(err, source);
  }
  // A service-format file is its own identity mapping: the same reader names its rows.
  return { bytes: source, report: opts.report ? mapCustodianExport(source).report : undefined };
}

/** A header error of a file in the service's format, with what to do when the file is an export of another system. */
function withExportHint(err: unknown, source: Buffer): unknown {
  if (!(err instanceof CustodianCsvError) || err.row !== 1) return err;
  let headers: string[];
  try {
    headers = mapCustodianExport(source).report.headers;
  } catch {
    return err;
  }
  const preset = presetOfHeaders(headers);
  const hint = preset
    ? ` The header row looks like a ${CUSTODIAN_PRESETS[preset].title}: set preset: "${preset}" to map its columns.`
    : ' To read an export with other column names, map them with columns (e.g. { email: "Mail" }) or a preset (see docs/custodians.md).';
  return new CustodianCsvError(err.row, `${err.rule}.${hint}`, err.column);
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const label = (s: { directoryId: number }) => `CustodianDirectorySync of directory ${s.directoryId}`;

async function sync(client: ReviewAdminClient, inputs: Inputs): Promise<CustodianDirectorySyncState> {
  const { bytes } = prepare(inputs, { report: false });
  const parsed = parseCustodianCsv(bytes);
  const form = new FormData();
  form.set("file", new Blob([bytes], { type: "text/csv" }), "custodians.csv");
  const result = await client.call("PostDirectoryCustodians", { directoryId: inputs.directoryId }, form);
  return definedOnly({
    directoryId: inputs.directoryId,
    contentHash: sha256(bytes),
    peopleCount: parsed.people.length,
    ignored: [...result.custodians].sort(),
    csvPath: inputs.csvPath,
  });
}

/**
 * The first broken rule among typed records, naming the record (`people.<i>` and its email) and
 * the property. Each record is checked on its own, then emails across records: a whole-list parse
 * would name a row of the CSV rendered from the records, sorted by email, which the program never
 * sees (people[1] could be reported as "row 2"), so it could not tell which record is wrong.
 */
function peopleFailure(people: CustodianInput[]): CheckFailure | undefined {
  const who = (p: CustodianInput) => p.email ?? p.userPrincipalName ?? "no email or user principal name";
  const firstOfEmail = new Map<string, number>();
  for (const [i, person] of people.entries()) {
    try {
      parseCustodianCsv(renderCustodianCsv([person]));
    } catch (err) {
      if (!(err instanceof CustodianCsvError)) throw err;
      const column = err.column ? `, ${CUSTODIAN_COLUMNS[err.column as keyof typeof CUSTODIAN_COLUMNS] ?? err.column}` : "";
      return { property: `people.${i}`, reason: `${who(person)}${column}: ${err.rule}` };
    }
    const email = person.email ? normalizeEmail(person.email) : undefined;
    if (!email) continue;
    const first = firstOfEmail.get(email);
    if (first !== undefined) {
      return { property: `people.${i}`, reason: `${person.email}: the same email as people.${first} (people are matched by email)` };
    }
    firstOfEmail.set(email, i);
  }
  return undefined;
}

/** The CustodianDirectorySync implementation run by the plugin. */
export const custodianDirectorySync = defineResource<Inputs, CustodianDirectorySyncState>({
  kind: "CustodianDirectorySync",
  inputs: Inputs,
  outputs: outputsMatch<CustodianDirectorySyncState>()(["directoryId", "contentHash", "peopleCount", "ignored", "csvPath"]),
  label,
  idOf: (s) => `directory/${s.directoryId}`,

  async check(inputs) {
    if (containsUnknown(inputs)) return { inputs };
    const badPerson = inputs.people ? peopleFailure(inputs.people as CustodianInput[]) : undefined;
    if (badPerson) return { failures: [badPerson] };
    const property = inputs.people ? "people" : inputs.csv !== undefined ? "csv" : "csvPath";
    try {
      const { bytes, report } = prepare(inputs, { report: true });
      if (report) {
        const verdict = judgeCustodianFile(report, {
          input: property,
          label: label(inputs),
          preset: inputs.preset,
          mapped: isMapped(inputs),
          allowIgnoredRows: inputs.allowIgnoredRows,
        });
        if (verdict.failure) return { failures: [{ property, reason: verdict.failure }] };
        // Check runs at preview too: these lines reach the CLI's output before anything is sent.
        for (const line of verdict.warnings) say.warn(line);
        if (verdict.summary) say.info(verdict.summary);
      }
      return { inputs: { ...inputs, contentHash: sha256(bytes) } };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return { failures: [{ property, reason }] };
    }
  },

  diff(olds, news) {
    const replaces = news.directoryId !== olds.directoryId ? ["directoryId"] : [];
    // An unknown hash (preview) may or may not change: say so rather than guess.
    const contentChanged = news.contentHash === UNKNOWN || news.contentHash !== olds.contentHash;
    return { changes: replaces.length > 0 || contentChanged || news.csvPath !== olds.csvPath, replaces };
  },

  create: (inputs, { client }) => sync(client, inputs),
  // No read endpoint: the last synced state is all there is to show.
  update: (_olds, news, { client }) => sync(client, news),

  async delete(state) {
    say.warn(
      `${label(state)}: the service has no endpoint to delete or empty a custodian directory; its people stay as last synced. Remove them in the web application if needed.`,
    );
  },
});

/**
 * The people of a legal-hold custodian directory, synced from typed records, CSV text, or a
 * CSV file in the repo (exactly one of `people`, `csv`, `csvPath`). A CSV exported from an
 * identity provider or HR system is mapped with `preset` and/or `columns`. Every CSV rule of the
 * service is checked at plan time, naming the row and the rule, and a file most of whose rows have
 * no email is refused unless `allowIgnoredRows`; the SHA-256 of what will be sent is computed at
 * plan time, so an edited CSV shows as a change. The service has no read and no delete endpoint for a
 * directory: refresh keeps the last synced state, and delete leaves the directory as it is (with
 * a warning).
 */
export interface CustodianDirectorySync extends Outputs<CustodianDirectorySyncState> {}
export class CustodianDirectorySync extends ReviewAdminResource {
  constructor(name: string, args: CustodianDirectorySyncArgs, opts?: pulumi.CustomResourceOptions) {
    super(custodianDirectorySync.definition, name, args, opts);
  }
}
