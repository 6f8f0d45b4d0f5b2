/**
 * CustodianDirectorySync: the people of a legal-hold custodian directory, synced from typed
 * records or a CSV file (E5).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import {
  CUSTODIAN_COLUMNS, CustodianCsvError, MAX_CSV_BYTES, parseCustodianCsv, renderCustodianCsv, type CustodianInput,
} from "../../contract/custodianCsv";
import type { ReviewAdminClient } from "../client";
import { definedOnly } from "../util";
import { idOf } from "./support/inputs";
import { argsMatch, containsUnknown, defineResource, UNKNOWN, type CheckFailure } from "./support/lifecycle";
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
}

const properties = Object.values(CUSTODIAN_COLUMNS) as [string, ...string[]];
const Person = z.partialRecord(z.enum(properties, { message: `must be one of: ${properties.join(", ")}` }), z.string().nullable());

const Inputs = z
  .strictObject({
    directoryId: idOf("directory"),
    people: z.array(Person).optional(),
    csv: z.string().optional(),
    csvPath: z.string().min(1).optional(),
    // Computed by check from the content, so an edited file shows as a change.
    contentHash: z.string().optional(),
  })
  .refine((v) => [v.people, v.csv, v.csvPath].filter((x) => x !== undefined).length === 1, {
    message: "give exactly one of people, csv and csvPath",
    path: ["people"],
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

/** The CSV bytes the inputs stand for. */
function csvOf(inputs: Inputs): Buffer {
  if (inputs.people) return Buffer.from(renderCustodianCsv(inputs.people as CustodianInput[]), "utf8");
  if (inputs.csv !== undefined) return Buffer.from(inputs.csv, "utf8");
  const size = fs.statSync(inputs.csvPath!).size;
  if (size > MAX_CSV_BYTES) {
    throw new CustodianCsvError(0, `the file is ${size} bytes; the service takes at most ${MAX_CSV_BYTES} bytes (190MB)`);
  }
  return fs.readFileSync(inputs.csvPath!);
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const label = (s: { directoryId: number }) => `CustodianDirectorySync of directory ${s.directoryId}`;

async function sync(client: ReviewAdminClient, inputs: Inputs): Promise<CustodianDirectorySyncState> {
  const bytes = csvOf(inputs);
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
      return { property: `people.${i}`, reason: `people.${i} (${who(person)})${column}: ${err.rule}` };
    }
    const email = person.email?.trim().toLowerCase();
    if (!email) continue;
    const first = firstOfEmail.get(email);
    if (first !== undefined) {
      return { property: `people.${i}`, reason: `people.${i} (${person.email}): the same email as people.${first} (people are matched by email)` };
    }
    firstOfEmail.set(email, i);
  }
  return undefined;
}

/** The CustodianDirectorySync implementation run by the plugin. */
export const custodianDirectorySync = defineResource<Inputs, CustodianDirectorySyncState>({
  kind: "CustodianDirectorySync",
  inputs: Inputs,
  outputs: ["directoryId", "contentHash", "peopleCount", "ignored", "csvPath"],
  label,
  idOf: (s) => `directory/${s.directoryId}`,

  async check(inputs) {
    if (containsUnknown(inputs)) return { inputs };
    const badPerson = inputs.people ? peopleFailure(inputs.people as CustodianInput[]) : undefined;
    if (badPerson) return { failures: [badPerson] };
    try {
      const bytes = csvOf(inputs);
      parseCustodianCsv(bytes);
      return { inputs: { ...inputs, contentHash: sha256(bytes) } };
    } catch (err) {
      const property = inputs.people ? "people" : inputs.csv !== undefined ? "csv" : "csvPath";
      const reason = err instanceof Error ? err.message : String(err);
      return { failures: [{ property, reason: `${property}: ${reason}` }] };
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
    pulumi.log.warn(
      `${label(state)}: the service has no endpoint to delete or empty a custodian directory; its people stay as last synced. Remove them in the web application if needed.`,
    );
  },
});

/**
 * The people of a legal-hold custodian directory (E5), synced from typed records, CSV text, or a
 * CSV file in the repo (exactly one of `people`, `csv`, `csvPath`). Every CSV rule of the service
 * is checked at plan time, naming the row and the rule; the content's SHA-256 is computed at plan
 * time, so an edited CSV shows as a change. The service has no read and no delete endpoint for a
 * directory: refresh keeps the last synced state, and delete leaves the directory as it is (with
 * a warning).
 */
export interface CustodianDirectorySync extends Outputs<CustodianDirectorySyncState> {}
export class CustodianDirectorySync extends ReviewAdminResource {
  constructor(name: string, args: CustodianDirectorySyncArgs, opts?: pulumi.CustomResourceOptions) {
    super(custodianDirectorySync.definition, name, args, opts);
  }
}
