/**
 * `pulumi-reviewadmin review apply-signoff`: a reviewer's sign-off (signoff.ts) checked against
 * the packet and applied to the exported access.ts, which then goes into a pull request. Reads
 * and writes files only: no request to the service.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { isCalendarDay } from "../../provider/resources/support/expiry";
import { plural, UsageError, type Command } from "../command";
import { DATES_TYPE } from "../export/accessFile";
import { MANIFEST_FILE } from "./manifest";
import { readOptionFile, readPacket } from "./readPacket";
import { recordSignoff } from "./signed";
import { applyToAccessFile, checkAgainstPacket, parseSignoff, type CheckedDecision } from "./signoff";

/** Undecided rows listed by name; the rest are counted. */
const UNDECIDED_LISTED = 20;

function required(o: Record<string, unknown>, name: string): string {
  const v = o[name];
  if (typeof v !== "string" || v.trim() === "") throw new UsageError(`--${name} is required`);
  return v;
}

/** A line of access a decision names, as `--json` reports it. */
export interface SignoffLine {
  organization: number;
  email: string;
  /** "organization" or "database <id>", as in the packet. */
  scope: string;
  /** The permissions the packet holds for the line. */
  permissions: string[];
}

/** What apply-signoff changed (or with --check would change), as `--json` prints it. */
export interface SignoffSummary {
  signoff: string;
  access: string;
  /** The packet's "as of" day: the review the notes name. */
  review: string;
  /** The sign-off day: removed lines' expiresOn. */
  on: string;
  check: boolean;
  /** Whether access.ts was rewritten (not with --check, nor when nothing was removed or changed). */
  written: boolean;
  /** The sign-off's copy kept in the packet and recorded in its manifest.json (signed.ts); null with --check or no manifest. */
  recorded: string | null;
  counts: { decisions: number; removed: number; changed: number; kept: number; undecided: number };
  removed: (SignoffLine & { expiresOn: string })[];
  changed: (SignoffLine & { to: string[] })[];
  kept: SignoffLine[];
  undecided: { email: string; scope: string; where: string }[];
}

const lineOf = (d: CheckedDecision): SignoffLine => ({
  organization: d.organizationId,
  email: d.email,
  scope: d.line.scope,
  permissions: [...d.line.permissions].sort(),
});

/** The packet's folder: the option names it, or its review.json. */
const packetFolder = (where: string) => (fs.statSync(where).isDirectory() ? where : path.dirname(where));

/**
 * Refuses a sign-off made against another packet: review.html's sign-offs name the SHA-256 of the
 * review.json they were made from (the hash manifest.json lists for it; the page cannot carry the
 * manifest's own hash, which covers the page). Names both hashes, and says when the packet's
 * review.json no longer matches its own manifest.
 */
function checkSamePacket(signoffFile: string, theirs: string | undefined, where: string): void {
  if (theirs === undefined) return;
  const file = fs.statSync(where).isDirectory() ? path.join(where, "review.json") : where;
  const ours = createHash("sha256").update(fs.readFileSync(file)).digest("hex");
  let listed: unknown;
  try {
    listed = (JSON.parse(fs.readFileSync(path.join(path.dirname(file), "manifest.json"), "utf8")) as { files?: Record<string, unknown> })
      .files?.["review.json"];
  } catch {
    listed = undefined; // a packet without its manifest: the file's own hash is what there is
  }
  if (listed !== undefined && listed !== ours)
    throw new UsageError(
      `--packet: ${file} has SHA-256 ${ours}, but its manifest.json lists ${String(listed)}: the packet was altered since it was written (pulumi-reviewadmin review verify names what)`,
    );
  if (theirs !== ours)
    throw new UsageError(
      `the sign-off ${signoffFile} was made against another packet: it names review.json SHA-256 ${theirs}, and ${file} has ${ours}: apply a sign-off to the packet it was made from`,
    );
}

/** Today (UTC) by this machine's clock. */
const today = () => new Date().toISOString().slice(0, 10);

/**
 * The sign-off day: --on, else today (UTC). Never after today: a removal ends access at the start
 * of its day, so a later day would leave the access in place after the next up.
 */
function signoffDay(value: unknown): string {
  const now = today();
  if (value === undefined) return now;
  const day = String(value).trim();
  if (!isCalendarDay(day)) throw new UsageError(`--on must be a calendar day written YYYY-MM-DD (UTC), got '${day}'`);
  if (day > now)
    throw new UsageError(
      `--on must not be after today (${now}, UTC): a removal must take effect at the next up; to end access on a later day, write that expiresOn in access.ts yourself`,
    );
  return day;
}

/** The apply-signoff subcommand of review. */
export const applySignoffCommand: Command = {
  name: "review apply-signoff",
  summary: "apply a reviewer's sign-off to the exported access.ts",
  description: `
Checks a reviewer's sign-off against the review packet and applies it to the access.ts that
\`pulumi-reviewadmin export\` wrote: a removed line gets an end date, expiresOn: "<the sign-off
day>", a changed one its new permissions, each with a comment naming the review (its "as of"
day) and the justification; a kept one stays. Commit the result and open a pull request: its
\`pulumi preview\` names exactly the decided removals and changes, and the next \`pulumi up\`
takes the removed access away in every style export writes (rosters additive or authoritative,
per person, with or without retainOnDelete: the provider removes what is past its end date).
Nothing is written when any decision is wrong (a person or scope not in the packet, an unknown
permission, two decisions for one line), or when access.ts and the packet disagree (export and
review the same world).

The sign-off is the one review.html saves (JSON, or CSV for a spreadsheet): it names the packet
it was made against (the SHA-256 of its review.json, as manifest.json lists it), and one made
against another packet is refused, naming both hashes. Or it is the packet's review.csv with its
decision column (and justification) filled in,
saved as it is: by Excel too, with ',' or ';' as the delimiter (read from the header), a UTF-8
byte-order mark and CRLF line ends. Rows with an empty decision are undecided: counted and
listed, not an error. A CSV of your own needs a header with email (or person), scope and
decision, plus permissions for changes, justification, and organization (id or name) when the
packet has several; or JSON: an array of {email, scope, decision, permissions, justification}.
scope is "organization", a database (id, "database <id>" or name) or "all" (every line of the
person's access: keep or remove); decision keep, remove or change; permissions, for change, the
new set separated by spaces, e.g. "DB_UPLOAD DB_LEGAL_HOLD" (review.csv's permissions cell,
edited). Errors name the line: "signoff.csv line 7: decision must be keep, remove or change".

Who decided and when go into each note: review.csv's reviewer and reviewed_on columns, or
--reviewer (and the sign-off day) for rows that leave them empty: "removed by the access review
of 2026-11-20, signed off by Ada Lovelace on 2026-11-21: left the matter". With
--require-justification (a firm's rule) a decision without a justification is refused, naming
its row and person, and nothing is written.

The sign-off day (--on, default today by this machine's clock, UTC) is the end date of removed
lines: access ends at the start of that day, so the next up removes it. It may be earlier than
today, never later.

The packet keeps what was signed (not with --check): the sign-off file is copied into the
packet's folder (signoff-<its SHA-256's first 12 digits>.json or .csv) and recorded in its
manifest.json under "signoffs" (reviewer, attestation, day, hash), so \`review verify\` covers it.
A signed packet is never replaced by \`review --out\`, not even with --force. After the up,
\`review reconcile\` records what became of each decision.`,
  options: {
    signoff: { type: "string", value: "FILE", help: "the reviewer's sign-off: review.csv with decisions filled in, another CSV, or JSON" },
    packet: { type: "string", value: "DIR", help: "the review packet's folder (or its review.json) the sign-off answers" },
    access: { type: "string", value: "FILE", help: "the exported access.ts to change (rewritten in place)" },
    on: { type: "string", value: "DAY", help: "the sign-off day, YYYY-MM-DD (UTC): removed lines' expiresOn (default today; not later)" },
    check: { type: "boolean", help: "check the sign-off and print what it would change; write nothing" },
    "require-justification": {
      type: "boolean",
      help: "refuse any decision (keep, remove or change) without a justification, naming its row and person (the firm's rule)",
    },
    reviewer: {
      type: "string",
      value: "NAME",
      help: 'who signed off, e.g. "Ada Lovelace <ada@northwind.example>": for rows whose reviewer column is empty',
    },
    json: {
      type: "boolean",
      help: "print what it changed (with --check, would change) as JSON on stdout: counts, and the removed, changed, kept and undecided lines",
    },
  },
  examples: [
    "pulumi-reviewadmin review apply-signoff --signoff signoff-2026-12-01.json --packet access-review/2026-12 --access access/access.ts",
    "pulumi-reviewadmin review apply-signoff --signoff alice.csv --packet access-review/2026-12 --access access/access.ts --on 2026-12-02",
    "git -C access diff   # the change to propose; its pulumi preview names the removals",
  ],

  async run(o, io) {
    const signoffFile = required(o, "signoff");
    const packet = readPacket("packet", required(o, "packet"));
    const accessFile = required(o, "access");
    const on = signoffDay(o.on);
    const signoffText = readOptionFile("signoff", signoffFile);
    const signoff = parseSignoff(signoffFile, signoffText);
    checkSamePacket(signoffFile, signoff.packetSha256, required(o, "packet"));
    const reviewer = typeof o.reviewer === "string" ? o.reviewer.trim() : "";
    for (const d of signoff.decisions) {
      if (o["require-justification"] === true && d.justification === "")
        throw new UsageError(
          `${d.where}: --require-justification: the ${d.decision} decision for ${d.email} on ${d.scope} has no justification; write why in its justification column`,
        );
      if (d.reviewedOn !== "" && !isCalendarDay(d.reviewedOn))
        throw new UsageError(`${d.where}: reviewed_on must be a calendar day written YYYY-MM-DD, got '${d.reviewedOn}'`);
      if (d.reviewer === "") {
        d.reviewer = reviewer;
        if (reviewer && d.reviewedOn === "") d.reviewedOn = on;
      }
    }
    const decisions = checkAgainstPacket(signoff.decisions, packet);
    const source = readOptionFile("access", accessFile);
    if (!source.includes("export const organizations: Organization[] = ["))
      throw new UsageError(`--access must name the access.ts that pulumi-reviewadmin export wrote; ${accessFile} is not one`);
    if (!source.includes(DATES_TYPE))
      throw new UsageError(
        `--access: ${accessFile} was written by an older pulumi-reviewadmin export, whose access.ts cannot give a line an end date: export again (with --force into the same folder) and apply the sign-off to that`,
      );
    const review = packet.asOf.slice(0, 10);
    const result = applyToAccessFile(source, decisions, { review, on });
    const written = o.check !== true && (result.removed.length > 0 || result.changed.length > 0);
    if (written) fs.writeFileSync(accessFile, result.text);
    // The packet keeps what was signed: the sign-off itself, and who, the attestation and the day in its manifest.
    const folder = packetFolder(required(o, "packet"));
    const recorded =
      o.check !== true && fs.existsSync(path.join(folder, MANIFEST_FILE))
        ? recordSignoff(folder, signoffFile, signoffText, signoff, on, reviewer)
        : undefined;
    const { undecided } = signoff;
    if (o.json === true) {
      const summary: SignoffSummary = {
        signoff: signoffFile,
        access: accessFile,
        review,
        on,
        check: o.check === true,
        written,
        recorded: recorded ? path.join(folder, recorded.file) : null,
        counts: {
          decisions: decisions.length,
          removed: result.removed.length,
          changed: result.changed.length,
          kept: result.kept,
          undecided: undecided.length,
        },
        removed: decisions.filter((d) => d.decision === "remove").map((d) => ({ ...lineOf(d), expiresOn: on })),
        changed: decisions.filter((d) => d.decision === "change").map((d) => ({ ...lineOf(d), to: [...d.permissions].sort() })),
        kept: decisions.filter((d) => d.decision === "keep").map(lineOf),
        undecided: undecided.map((u) => ({ email: u.email, scope: u.scope, where: u.where })),
      };
      io.out(JSON.stringify(summary, null, 2));
      return 0;
    }
    const lines = [
      `${o.check === true ? "Would apply" : "Applied"} ${plural(decisions.length, "decision")} of ${signoffFile} (the review as of ${review}, signed off ${on}) to ${accessFile}: ` +
        `${result.removed.length} removed, ${result.changed.length} changed, ${result.kept} kept; ${undecided.length} undecided.`,
      ...result.removed.map((r) => `  remove ${r}`),
      ...result.changed.map((c) => `  change ${c}`),
      ...undecided.slice(0, UNDECIDED_LISTED).map((u) => `  undecided ${u.email || "(no email)"} on ${u.scope} (${u.where})`),
      ...(undecided.length > UNDECIDED_LISTED ? [`  ... and ${undecided.length - UNDECIDED_LISTED} more undecided`] : []),
    ];
    if (recorded)
      lines.push(
        `Recorded in ${path.join(folder, MANIFEST_FILE)}: ${recorded.file}, signed off by ${recorded.reviewer ?? "an unnamed reviewer"} on ${recorded.on}${recorded.attestation ? ", attested" : ""}; a later review writes into a folder of its own.`,
      );
    if (result.removed.length)
      lines.push(
        `The first pulumi up on or after ${on} takes the removed access away (access ends at the start of its expiresOn day); its preview names each removal.`,
      );
    io.out(lines.join("\n"));
    return 0;
  },
};
