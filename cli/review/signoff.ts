/**
 * A reviewer's sign-off, checked against the packet and turned into the change of the exported
 * access.ts (export/accessFile.ts writes it one person or grant per line, so the change is a few
 * edited lines): the review ends in a pull request whose `pulumi preview` is the change.
 *
 * The sign-off is review.csv with its decision (and justification) column filled in, a CSV of
 * its own with a header (email or person, scope, decision; permissions for changes; organization
 * or organization_id when the packet has several; justification), or JSON (an array of those, or
 * {"decisions": [...]}). review.html saves both kinds (issue 55): JSON with the packet it was made
 * against ({"packet": {"sha256": ...}}), and CSV with a byte-order mark, a `sep=,` first line and a
 * packet_sha256 column; a sign-off naming a packet is applied to that packet only. scope is "organization", a database (its id, "database <id>" or its
 * name) or "all" (every line of the person's access); decision keep, remove or change, or empty
 * (undecided: counted and listed, not an error); permissions separated by spaces.
 *
 * A remove does not delete the line: it gives it `expiresOn: "<the sign-off day>"`, which the
 * provider honours in every style the export writes (an additive roster removes what is past its
 * end date; a retained per-person resource stays and removes the access), with a comment naming
 * the review and the justification.
 */
import { parse } from "csv-parse/sync";
import { DatabasePermission, OrganizationPermission } from "../../contract";
import { UsageError } from "../command";
import { commentText } from "../export/accessFile";
import type { AccessLine, ReviewPacket } from "./format";

/** One decision as the reviewer wrote it, with where (for errors). */
export interface Decision {
  /** "signoff.csv line 7", "signoff.json decision 3". */
  where: string;
  /** An organization id, or its name as the packet has it. */
  organization?: string;
  email: string;
  scope: string;
  decision: "keep" | "remove" | "change";
  /** The permissions column: for a change the new set; review.csv's rows carry the current set. */
  permissions: string[];
  /** Why; written into access.ts's comment of a removed or changed line. */
  justification: string;
  /** Who decided (review.csv's reviewer column), and the day (reviewed_on); empty when not given. */
  reviewer: string;
  reviewedOn: string;
}

/** A row of the sign-off without a decision. */
export interface Undecided {
  where: string;
  email: string;
  scope: string;
}

/** A sign-off read: its decisions, and the rows left undecided. */
export interface Signoff {
  decisions: Decision[];
  undecided: Undecided[];
  /** The SHA-256 of the review.json the sign-off was made against, where it says (review.html's saves do). */
  packetSha256?: string;
  /** Who signed the whole sign-off off (review.html's JSON names one; else the rows' reviewers, joined). */
  reviewer?: string;
  /** The attestation sentence the reviewer ticked in review.html (JSON, or the CSV's attestation column). */
  attestation?: string;
  /** When review.html saved it (JSON only), by the reviewer's machine's clock. */
  signedAt?: string;
}

/** A cell review.csv neutralized for spreadsheets (`'=...`, provider/data/spreadsheetSafe.ts), as it was. */
const unneutralized = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

/**
 * A spreadsheet's delimiter hint, `sep=X` alone on the first line (after a byte-order mark), as
 * review.html's sign-off writes it and Excel reads it.
 */
const SEP_LINE = /^\uFEFF?sep=([,;\t|])[ \t]*(?=\r\n|\r|\n|$)/i;

/** The delimiter of a CSV: its `sep=` line's, else from its header line (Excel writes ';' where the decimal mark is a comma). */
function delimiterOf(text: string): string {
  const hint = SEP_LINE.exec(text);
  if (hint) return hint[1]!;
  const header = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/, 1)[0] ?? "";
  const count = (c: string) => header.split(c).length - 1;
  return count(";") > count(",") ? ";" : ",";
}

/** Column names a sign-off may use for each field, the first present wins (review.csv's names included). */
const COLUMNS = {
  email: ["email", "person"],
  organization: ["organization_id", "organization"],
  scope: ["scope"],
  decision: ["decision"],
  permissions: ["permissions"],
  justification: ["justification"],
  reviewer: ["reviewer"],
  reviewedOn: ["reviewed_on"],
  packetSha256: ["packet_sha256"],
  attestation: ["attestation"],
} as const;

/**
 * Line numbers (1-based) of UTF-8 byte offsets of `text`, asked in increasing order: csv-parse
 * says where each record ends in bytes, and counts a CRLF inside a quoted cell as two lines.
 */
function lineCounter(text: string): (offset: number) => number {
  const bytes = Buffer.from(text, "utf8");
  let at = 0;
  let line = 1;
  return (offset) => {
    for (; at < offset && at < bytes.length; at++) if (bytes[at] === 0x0a || (bytes[at] === 0x0d && bytes[at + 1] !== 0x0a)) line++;
    return line;
  };
}

/** The records of a CSV sign-off, each with the line it starts on, or a UsageError naming the line. */
function csvRecords(name: string, original: string): { where: string; fields: Record<string, string> }[] {
  const delimiter = delimiterOf(original);
  // The sep= line is no record: blanked, so that the lines keep their numbers.
  const text = original.replace(SEP_LINE, "");
  let parsed: { record: string[]; info: { bytes: number } }[];
  try {
    // Empty lines are records here (dropped below), so that each record starts where the one before it ended.
    parsed = parse(text, { bom: true, delimiter, relax_column_count: true, info: true }) as unknown as typeof parsed;
  } catch (err) {
    const { lines, message } = (err ?? {}) as { lines?: unknown; message?: string };
    throw new UsageError(`${name}${typeof lines === "number" ? ` line ${lines}` : ""}: not a well-formed CSV (${message ?? String(err)})`);
  }
  const lineAt = lineCounter(text);
  let start = 0;
  const rows = parsed.map((r) => {
    const line = lineAt(start);
    start = r.info.bytes;
    return { record: r.record, line };
  });
  const [header, ...body] = rows.filter((r) => r.record.some((c) => c.trim() !== ""));
  const cols = (header?.record ?? []).map((h) => h.trim().toLowerCase());
  for (const need of ["email", "scope", "decision"] as const)
    if (!COLUMNS[need].some((c) => cols.includes(c)))
      throw new UsageError(
        `${name} line ${header?.line ?? 1}: needs a header row with email (or person), scope and decision (and permissions for changes), as review.csv has; ` +
          `'${need}' is missing (read with '${delimiter}' as the delimiter: ${cols.map((c) => `'${c}'`).join(", ") || "no columns"})`,
      );
  const index = Object.fromEntries(
    Object.entries(COLUMNS).map(([field, names]) => [field, names.map((c) => cols.indexOf(c)).find((i) => i >= 0) ?? -1]),
  );
  return body.map((r) => ({
    where: `${name} line ${r.line}`,
    fields: Object.fromEntries(Object.entries(index).map(([field, i]) => [field, i < 0 ? "" : unneutralized(r.record[i] ?? "")])),
  }));
}

/** The decisions of a sign-off file's text (`name` for errors), or a UsageError naming the line and the rule. */
export function parseSignoff(name: string, text: string): Signoff {
  let records: { where: string; fields: Record<string, unknown> }[];
  const hashes = new Set<string>();
  const whole: Pick<Signoff, "reviewer" | "attestation" | "signedAt"> = {};
  if (/^\uFEFF?\s*[[{]/.test(text)) {
    let json: unknown;
    try {
      json = JSON.parse(text.replace(/^\uFEFF/, ""));
    } catch (err) {
      throw new UsageError(`the sign-off ${name} is not valid JSON: ${(err as Error).message}`);
    }
    const list = Array.isArray(json) ? json : (json as { decisions?: unknown }).decisions;
    if (!Array.isArray(list)) throw new UsageError(`the sign-off ${name} must be a JSON array of decisions, or {"decisions": [...]}`);
    records = list.map((fields, i) => ({ where: `${name} decision ${i + 1}`, fields: (fields ?? {}) as Record<string, unknown> }));
    const sha = (json as { packet?: { sha256?: unknown } }).packet?.sha256;
    if (sha !== undefined) hashes.add(String(sha).trim().toLowerCase());
    for (const k of ["reviewer", "attestation", "signedAt"] as const) {
      const v = (json as Record<string, unknown>)[k];
      if (typeof v === "string" && v.trim() !== "") whole[k] = v.trim();
    }
  } else {
    records = csvRecords(name, text);
    for (const r of records) if (r.fields.packetSha256) hashes.add(String(r.fields.packetSha256).trim().toLowerCase());
    const attested = records.map((r) => String(r.fields.attestation ?? "").trim()).find((a) => a !== "");
    if (attested) whole.attestation = attested;
  }
  if (hashes.size > 1)
    throw new UsageError(
      `the sign-off ${name} names more than one packet (review.json SHA-256 ${[...hashes].join(", ")}): it was edited or merged from two`,
    );

  const out: Signoff = { decisions: [], undecided: [], ...(hashes.size ? { packetSha256: [...hashes][0]! } : {}), ...whole };
  for (const { where, fields } of records) {
    const text = (k: string) => (fields[k] === undefined || fields[k] === null ? "" : String(fields[k]).trim());
    const email = text("email").toLowerCase();
    const scope = text("scope") || "organization";
    const decision = text("decision").toLowerCase();
    if (decision === "") {
      out.undecided.push({ where, email, scope });
      continue;
    }
    if (decision !== "keep" && decision !== "remove" && decision !== "change")
      throw new UsageError(`${where}: decision must be keep, remove or change, got '${text("decision")}'`);
    if (!email) throw new UsageError(`${where}: email must name a person of the packet (its email, or "user <id>")`);
    const permissions = Array.isArray(fields.permissions)
      ? fields.permissions.map(String)
      : text("permissions")
          .split(/[\s;|,]+/)
          .filter(Boolean);
    const org = text("organization");
    out.decisions.push({
      where,
      ...(org ? { organization: org } : {}),
      email,
      scope,
      decision,
      permissions,
      justification: text("justification"),
      reviewer: text("reviewer"),
      reviewedOn: text("reviewedOn") || text("reviewed_on"),
    });
  }
  return out;
}

/** A decision matched to the packet: the organization, the person's user id and the line as reviewed. */
export interface CheckedDecision extends Decision {
  organizationId: number;
  userId: number | null;
  line: AccessLine;
}

/** The packet's organizations a decision may mean: the one its organization names, or all. */
function organizationsOf(d: Decision, packet: ReviewPacket): ReviewPacket["organizations"] {
  if (d.organization === undefined) return packet.organizations;
  const o = d.organization;
  const found = packet.organizations.filter((x) => (/^\d+$/.test(o) ? x.id === Number(o) : x.name.toLowerCase() === o.toLowerCase()));
  if (found.length === 0)
    throw new UsageError(
      `${d.where}: organization must be one of the packet's (${packet.organizations.map((x) => `${x.id} ${x.name}`).join(", ")}), got '${o}'`,
    );
  return found;
}

/**
 * Scope "all": one decision for every line of the person's access in the packet (keep or remove
 * only: a change names one permission set, which fits one scope).
 */
function expandAll(decisions: Decision[], packet: ReviewPacket): Decision[] {
  return decisions.flatMap((d) => {
    if (d.scope.toLowerCase() !== "all") return [d];
    if (d.decision === "change") throw new UsageError(`${d.where}: scope all takes keep or remove; a change names one scope`);
    if (d.permissions.length)
      throw new UsageError(`${d.where}: scope all takes no permissions (it means every line of the person's access)`);
    const lines = organizationsOf(d, packet).flatMap((o) => (o.people.find((p) => p.key === d.email)?.lines ?? []).map((l) => ({ o, l })));
    if (lines.length === 0) return [d]; // the checks below say what is wrong
    return lines.map(({ o, l }) => ({ ...d, organization: String(o.id), scope: l.scope }));
  });
}

const sameSet = (a: readonly string[], b: readonly string[]) => perms(a) === perms(b);

/** Checks each decision against the packet: the person, scope and permissions must be there and valid. */
export function checkAgainstPacket(decisions: Decision[], packet: ReviewPacket): CheckedDecision[] {
  const seen = new Set<string>();
  return expandAll(decisions, packet).map((d) => {
    const orgs = organizationsOf(d, packet).filter((o) => o.people.some((p) => p.key === d.email));
    if (orgs.length === 0)
      throw new UsageError(`${d.where}: ${d.email} is not in the packet${d.organization ? ` for organization ${d.organization}` : ""}`);
    if (orgs.length > 1)
      throw new UsageError(`${d.where}: ${d.email} is in organizations ${orgs.map((o) => o.id).join(", ")}: add an organization column`);
    const org = orgs[0]!;
    const person = org.people.find((p) => p.key === d.email)!;
    const byId = /^(?:database )?(\d+)$/.exec(d.scope);
    const line =
      d.scope.toLowerCase() === "organization"
        ? person.lines.find((l) => l.scope === "organization")
        : person.lines.find((l) => (byId ? l.scope === `database ${byId[1]}` : l.database?.toLowerCase() === d.scope.toLowerCase()));
    if (!line) {
      const has = person.lines.map((l) => (l.database ? `${l.scope} (${l.database})` : l.scope)).join(", ");
      throw new UsageError(`${d.where}: scope must be one where ${d.email} has access in the packet (${has}), got '${d.scope}'`);
    }
    const id = `${org.id} ${d.email} ${line.scope}`;
    if (seen.has(id))
      throw new UsageError(`${d.where}: a second decision for ${d.email} on ${line.scope}: one decision per person and scope`);
    seen.add(id);
    if (d.decision === "change") {
      const allowed: readonly string[] = line.status === "granted" ? DatabasePermission.options : OrganizationPermission.options;
      const bad = d.permissions.filter((x) => !allowed.includes(x));
      if (bad.length)
        throw new UsageError(`${d.where}: permissions must be of ${allowed.join(", ")} on ${line.scope}, got ${bad.join(", ")}`);
      if (line.status === "granted" && d.permissions.length === 0)
        throw new UsageError(`${d.where}: a change to no database permissions is a remove: write decision remove`);
    } else if (d.permissions.length && !sameSet(d.permissions, line.permissions))
      // review.csv carries each line's permissions: kept as they are they go with any decision; edited, they are a change.
      throw new UsageError(
        `${d.where}: permissions ${perms(d.permissions)} differ from the packet's ${perms(line.permissions)} on ${line.scope}: write decision change to change them`,
      );
    return { ...d, organizationId: org.id, userId: person.userId, line };
  });
}

function perms(list: readonly string[]): string {
  return `[${[...list]
    .sort()
    .map((p) => JSON.stringify(p))
    .join(", ")}]`;
}

/**
 * The line with the contents of its string literals masked (same length), so that code and
 * comment split, and fields are found, by position: a name may hold "//" or "permissions: [".
 */
function masked(line: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (!inString) {
      out += c;
      inString = c === '"';
    } else if (c === "\\") {
      out += "__";
      i++;
    } else if (c === '"') {
      out += c;
      inString = false;
    } else out += "_";
  }
  return out;
}

/** A line of access.ts as code and trailing comment (without `//`). */
function splitLine(line: string): { code: string; comment: string } {
  const at = masked(line).indexOf("//");
  return at < 0 ? { code: line.trimEnd(), comment: "" } : { code: line.slice(0, at).trimEnd(), comment: line.slice(at + 2).trim() };
}

/** The permission list of a line's code (a member's `permissions: [...]`, a grant's `<id>: [...]` or `<id>: { permissions: [...] }`). */
function permissionList(code: string, grant: boolean): { start: number; end: number } {
  const m = masked(code);
  const open = grant ? /^ {10}\d+: (?:\{ permissions: )?\[/.exec(m) : /permissions: \[/.exec(m);
  if (!open) throw new Error(`no permissions on the line: ${code}`);
  const start = open.index + open[0].length - 1;
  return { start, end: m.indexOf("]", start) + 1 };
}

/** The code with `expiresOn: "<day>"` set: replaced where the line has one, else added (a bare grant becomes `{ permissions, expiresOn }`). */
function withEnd(code: string, day: string, grant: boolean): string {
  const m = masked(code);
  const has = /expiresOn: "/.exec(m);
  if (has) {
    const from = has.index + has[0].length - 1;
    return `${code.slice(0, from)}${JSON.stringify(day)}${code.slice(m.indexOf('"', from + 1) + 1)}`;
  }
  if (m.endsWith(" },")) return `${code.slice(0, -3)}, expiresOn: ${JSON.stringify(day)} },`;
  const { start, end } = permissionList(code, grant);
  return `${code.slice(0, start)}{ permissions: ${code.slice(start, end)}, expiresOn: ${JSON.stringify(day)} }${code.slice(end)}`;
}

/**
 * The comment with the review's note: a DECIDE note is answered by it, the rest (a grant's person)
 * stays; a note already there (the same sign-off applied again) is not repeated.
 */
function withNote(comment: string, note: string): string {
  const kept = comment
    .split("; ")
    .map((p) => p.trim())
    .filter((p) => p && !p.startsWith("DECIDE:"))
    .join("; ");
  if (kept === note || kept.endsWith(`; ${note}`)) return kept;
  return kept ? `${kept}; ${note}` : note;
}

/** Where a decision's line sits in access.ts: its index and its permissions. */
function locate(lines: string[], d: CheckedDecision): { index: number; current: string[] } {
  const section =
    d.line.status === "member"
      ? "members"
      : d.line.status === "invited"
        ? "invitations"
        : d.line.status === "invitation-expired"
          ? "expiredInvitations"
          : "databases";
  const db = /^database (\d+)$/.exec(d.line.scope)?.[1];
  let org: number | undefined;
  let sec: string | undefined;
  let dbId: string | undefined;
  const current = (code: string) => {
    const { start, end } = permissionList(code, section === "databases");
    return JSON.parse(code.slice(start, end)) as string[];
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const o = /^ {4}id: (\d+),$/.exec(l);
    if (o) {
      org = Number(o[1]);
      sec = undefined;
    }
    const s = /^ {4}(members|invitations|expiredInvitations|databases): \[/.exec(l);
    if (s) sec = s[1];
    const dbm = /^ {8}id: (\d+),$/.exec(l);
    if (dbm) dbId = dbm[1];
    if (org !== d.organizationId || sec !== section) continue;
    if (section !== "databases" && l.startsWith(`      { email: ${JSON.stringify(d.email)},`))
      return { index: i, current: current(splitLine(l).code) };
    if (section === "databases" && dbId === db && d.userId !== null && l.startsWith(`          ${d.userId}: `))
      return { index: i, current: current(splitLine(l).code) };
  }
  throw new UsageError(
    `${d.where}: the access file holds no line for ${d.email} on ${d.line.scope} of organization ${d.organizationId}: it is older or newer than the packet (export and review the same world)`,
  );
}

/** The review a sign-off answers and the day it was signed, for access.ts's end dates and notes. */
export interface SignoffDays {
  /** The packet's "as of" day (YYYY-MM-DD): names the review in the notes. */
  review: string;
  /** The sign-off day (YYYY-MM-DD): a removed line's expiresOn. */
  on: string;
}

/** What applying a sign-off did. */
export interface SignoffResult {
  text: string;
  removed: string[];
  changed: string[];
  kept: number;
}

/**
 * access.ts with the decisions applied: a removed line gets `expiresOn: <on>` and a changed one
 * its new permissions, each with a comment naming the review and the justification. Refuses
 * when the file and the packet disagree.
 */
export function applyToAccessFile(source: string, decisions: CheckedDecision[], days: SignoffDays): SignoffResult {
  const lines = source.split("\n");
  const result: SignoffResult = { text: "", removed: [], changed: [], kept: 0 };
  for (const d of decisions) {
    if (d.decision === "keep") {
      result.kept++;
      continue;
    }
    const { index, current } = locate(lines, d);
    if (perms(current) !== perms(d.line.permissions))
      throw new UsageError(
        `${d.where}: the access file gives ${d.email} ${perms(current)} on ${d.line.scope}, the packet ${perms(d.line.permissions)}: export and review the same world`,
      );
    const label = `${d.email} on ${d.line.scope} of organization ${d.organizationId}`;
    const who = d.reviewer ? `, signed off by ${commentText(d.reviewer)}${d.reviewedOn ? ` on ${commentText(d.reviewedOn)}` : ""}` : "";
    const why = `${who}${d.justification ? `: ${commentText(d.justification)}` : ""}`;
    const grant = d.line.status === "granted";
    const { code, comment } = splitLine(lines[index]!);
    if (d.decision === "remove") {
      lines[index] = `${withEnd(code, days.on, grant)} // ${withNote(comment, `removed by the access review of ${days.review}${why}`)}`;
      result.removed.push(`${label}: expiresOn ${days.on}`);
    } else {
      const { start, end } = permissionList(code, grant);
      const was = d.line.permissions.length ? d.line.permissions.join(" ") : "no permissions";
      const note = `changed by the access review of ${days.review} (was ${was})${why}`;
      lines[index] = `${code.slice(0, start)}${perms(d.permissions)}${code.slice(end)} // ${withNote(comment, note)}`;
      result.changed.push(`${label}: ${perms(d.line.permissions)} -> ${perms(d.permissions)}`);
    }
  }
  result.text = lines.join("\n");
  return result;
}
