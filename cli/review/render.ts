/**
 * The packet's text for people and two of its files: review.md for people and review.csv for
 * spreadsheets (one row per line of access, formula-safe), with the pieces review.html (html.ts)
 * shows the same way: times in the reviewer's zone, lines of access and permissions in words, the
 * summary's counts and reasons, the code's verdicts; with a stack, review.md's wall section
 * (packetWalls.ts). Pure functions of the packet, so the files are as deterministic as it is;
 * packetFiles.ts puts the files together.
 */
import { csvLine, markdownCell as cell } from "../../provider/data/spreadsheetSafe";
import {
  CODE_FLAGS,
  FLAG_MEANING,
  FLAGS,
  linePrivileges,
  permissionText,
  type AccessLine,
  type Flag,
  type LineInCode,
  type ReviewChange,
  type ReviewOrganization,
  type ReviewPacket,
  type ReviewPerson,
} from "./format";
import { wallSection } from "./packetWalls";
import { compareSeverities, lineSeverities, personSeverities, SEVERITY, SEVERITY_WORDS, type Severity } from "./severity";

/** How the files for people show the packet: times in the reviewer's IANA zone (--time-zone), always named. */
export interface RenderOptions {
  timeZone: string;
}

/** The default: times in UTC. */
export const UTC: RenderOptions = { timeZone: "UTC" };

/** Whether `zone` is an IANA time zone this Node knows (Intl's list). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

// One formatter per zone: making one costs far more than formatting with it, and a packet of
// 28,000 people formats a time for each.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f)
    formatters.set(
      timeZone,
      (f = new Intl.DateTimeFormat("en-US", {
        timeZone,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
        timeZoneName: "shortOffset",
      })),
    );
  return f;
}

// The texts made, per zone: a packet shows the same few times (the activity window, each event's) for
// tens of thousands of people, and formatToParts is the costliest step of writing review.md.
const timeTexts = new Map<string, Map<string, string>>();

/** An ISO time to the minute in `zone`, named: "2026-11-20 13:00 Europe/Berlin (GMT+1)", "2026-11-20 12:00 UTC". */
export function timeText(iso: string, o: RenderOptions = UTC): string {
  let made = timeTexts.get(o.timeZone);
  if (!made) timeTexts.set(o.timeZone, (made = new Map()));
  let text = made.get(iso);
  if (text === undefined) made.set(iso, (text = formatTime(iso, o)));
  return text;
}

function formatTime(iso: string, o: RenderOptions): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const parts = Object.fromEntries(
    formatterOf(o.timeZone)
      .formatToParts(ms)
      .map((x) => [x.type, x.value]),
  );
  const local = `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
  return o.timeZone === "UTC" ? `${local} UTC` : `${local} ${o.timeZone} (${parts.timeZoneName})`;
}

/** A text with each ISO time in it (an attribution's "changed at ...") shown as timeText. */
export function zonedText(text: string, o: RenderOptions = UTC): string {
  return text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, (iso) => timeText(iso, o));
}

/** The access a line grants, in words: "member: administers the organization (...) (ORG_ADMIN)", "invited, expires ...: no permissions". */
export function lineText(l: AccessLine, o: RenderOptions = UTC): string {
  const perms = l.permissions.length ? l.permissions.map(permissionText).join(", ") : "no permissions";
  const what =
    l.status === "granted"
      ? `${l.database} (${l.scope})${l.active === false ? ", suspended account" : ""}`
      : l.status === "member"
        ? "member"
        : l.status === "invited"
          ? `invited, expires ${l.expires ? timeText(l.expires, o) : "(no date)"}`
          : `invitation expired ${l.expires ? timeText(l.expires, o) : "(no date)"}`;
  const ids = l.identifiers?.length ? `; identifiers ${l.identifiers.join(", ")}` : "";
  return `${what}: ${perms}${ids}`;
}

/** review.csv's columns; the last four are the reviewer's (SIGNOFF_COLUMNS). */
export const CSV_HEADER = [
  "organization_id",
  "organization",
  "person",
  "user_id",
  "name",
  "scope",
  "database",
  "status",
  "permissions",
  "identifiers",
  "expires",
  "last_activity",
  // The line's own flags (a person's privileged flag only on the lines that hold the privilege), and its severity (severity.ts).
  "flags",
  "risk",
  "declared_by",
  "ends_on",
  "permissions_not_in_code",
  // Left empty for the reviewer: the file is the sign-off template of review apply-signoff.
  "decision",
  "justification",
  // Who decided, and on which day (YYYY-MM-DD): apply-signoff writes them into access.ts's notes.
  "reviewer",
  "reviewed_on",
];

/** The sign-off columns, left empty in review.csv for the reviewer (and shown empty in review.html). */
export const SIGNOFF_COLUMNS = CSV_HEADER.slice(-4);

/** The flags a packet judged: the code flags only with a stack. */
export const judgedFlags = (p: ReviewPacket) => FLAGS.filter((f) => p.stack !== undefined || !CODE_FLAGS.includes(f));

/** What the stack's code says of one line of the person's access (empty without a stack). */
export const codeLine = (person: ReviewPerson, scope: string) => person.inCode?.lines.find((c) => c.scope === scope);

/** A line's status as review.csv writes it: "granted (suspended)" for a suspended account's database line. */
export const statusText = (l: AccessLine) => (l.status === "granted" && l.active === false ? "granted (suspended)" : l.status);

/** review.csv: one row per line of access, riskiest first (severity.ts), the sign-off columns empty. */
export function csv(p: ReviewPacket): string {
  const rows = [CSV_HEADER];
  for (const o of p.organizations) {
    for (const { person, lines } of risksOf(o)) {
      person.lines.forEach((l, i) => {
        rows.push([
          String(o.id),
          o.name,
          person.key,
          person.userId === null ? "" : String(person.userId),
          person.name,
          l.scope,
          l.database ?? "",
          statusText(l),
          l.permissions.join(" "),
          (l.identifiers ?? []).join("; "),
          l.expires ?? "",
          person.lastActivity ?? "",
          lineFlags(person, l).join(" "),
          lines[i]!.join(" "),
          (codeLine(person, l.scope)?.declaredBy ?? []).join("; "),
          codeLine(person, l.scope)?.endsOn ?? "",
          (codeLine(person, l.scope)?.notInCode ?? []).join(" "),
          "",
          "",
          "",
          "",
        ]);
      });
    }
  }
  return rows.map(csvLine).join("\r\n") + "\r\n";
}

/**
 * The lines (person and scope, "key\nscope") that gained access or permissions since the last
 * review: a line gained with permissions, or a line holding permissions it did not hold before.
 */
export function escalatedLines(o: ReviewOrganization): Set<string> {
  const out = new Set<string>();
  for (const c of [...(o.since?.gained ?? []), ...(o.since?.changed ?? [])]) {
    const before = new Set(c.before?.permissions ?? []);
    if ((c.after?.permissions ?? []).some((x) => !before.has(x))) out.add(`${c.key}\n${c.scope}`);
  }
  return out;
}

/** Flags that belong to a line: shown on the lines they are true of, not on each of the person's lines. */
const LINE_FLAGS: readonly Flag[] = ["privileged", "suspended", "invitation-expired", "not-in-code", "expiring-soon"];

/** Whether the code does not declare the line, or declares fewer permissions than it holds. */
const notInCodeLine = (c: LineInCode | undefined) => c !== undefined && (c.declaredBy.length === 0 || (c.notInCode?.length ?? 0) > 0);

/** The line's privileges that count: an expired invitation grants nothing until re-sent. */
const holdsPrivilege = (l: AccessLine) => l.status !== "invitation-expired" && linePrivileges(l).length > 0;

/** A line's flags: the person's, with those of LINE_FLAGS kept only where the line itself shows them. */
export function lineFlags(person: ReviewPerson, l: AccessLine): Flag[] {
  const c = codeLine(person, l.scope);
  const own: Record<string, boolean> = {
    privileged: holdsPrivilege(l),
    suspended: l.active === false,
    "invitation-expired": l.status === "invitation-expired",
    "not-in-code": notInCodeLine(c),
    "expiring-soon": c?.endsOn !== undefined,
  };
  return person.flags.filter((f) => !LINE_FLAGS.includes(f) || own[f]);
}

/** A person's risk: the severities of each of their lines (by index) and their own (severity.ts). */
export interface PersonRisk {
  person: ReviewPerson;
  lines: Severity[][];
  why: Severity[];
}

// While renderPacket writes the files, each organization's risks, judged once: every file and
// summary asks for them (seven passes over every line at 28,007 people). Kept no longer, so a
// packet changed afterwards is judged afresh.
let risksMade: WeakMap<ReviewOrganization, PersonRisk[]> | undefined;

/** Runs `render` with each organization's risksOf judged once and shared meanwhile (the packet must not change during it). */
export function withRisksShared<T>(render: () => T): T {
  const outer = risksMade;
  risksMade ??= new WeakMap();
  try {
    return render();
  } finally {
    risksMade = outer;
  }
}

/** Everyone of the organization with their risk, riskiest first (then in the packet's order, by key). */
export function risksOf(o: ReviewOrganization): PersonRisk[] {
  const made = risksMade?.get(o);
  if (made) return made;
  const risks = judgeRisks(o);
  risksMade?.set(o, risks);
  return risks;
}

function judgeRisks(o: ReviewOrganization): PersonRisk[] {
  const up = escalatedLines(o);
  const out = o.people.map((person) => {
    const has = (f: Flag) => person.flags.includes(f);
    const lines = person.lines.map((l) => {
      const own = lineFlags(person, l);
      return lineSeverities({
        privileged: holdsPrivilege(l),
        escalated: up.size > 0 && up.has(`${person.key}\n${l.scope}`),
        external: has("external"),
        stale: has("stale"),
        notInCode: own.includes("not-in-code"),
        expiring: own.includes("expiring-soon"),
        suspended: own.includes("suspended"),
        notAMember: has("not-a-member"),
        noAccess: has("no-access"),
        walled: has("walled"),
        wallBreach: has("wall-breach"),
      });
    });
    return { person, lines, why: personSeverities(lines) };
  });
  // Array.prototype.sort is stable: equal risks keep the packet's order (by key).
  return out.sort((a, b) => compareSeverities(a.why, b.why));
}

/** The people who need attention (at least one severity), riskiest first. */
export function attentionOf(o: ReviewOrganization): PersonRisk[] {
  return risksOf(o).filter((x) => x.why.length > 0);
}

/** What an organization's summary counts: people, lines of access, databases reviewed, and who needs attention, by reason (those with none left out). */
export interface OrganizationCounts {
  people: number;
  lines: number;
  databases: number;
  attention: PersonRisk[];
  byReason: (readonly [Severity, number])[];
}

/** How many of `attention` each severity applies to, riskiest first, those with none left out: one pass over the people. */
function reasonCounts(attention: readonly PersonRisk[]): (readonly [Severity, number])[] {
  const counts = new Map<Severity, number>();
  for (const x of attention) for (const a of x.why) counts.set(a, (counts.get(a) ?? 0) + 1);
  return SEVERITY.filter((a) => counts.has(a)).map((a) => [a, counts.get(a)!] as const);
}

/** The counts the summaries open with (review.md's and review.html's). */
export function organizationCounts(org: ReviewOrganization): OrganizationCounts {
  const attention = attentionOf(org);
  return {
    people: org.people.length,
    lines: org.people.reduce((n, x) => n + x.lines.length, 0),
    databases: org.databases.length,
    attention,
    byReason: reasonCounts(attention),
  };
}

/** A reason in words: "stale: no activity within their stale limit". */
export const reasonText = (a: Severity) => `${a}: ${SEVERITY_WORDS[a]}`;

/** The summary: per organization, the counts and who needs attention and why, riskiest first. */
function summary(p: ReviewPacket, o: RenderOptions): string[] {
  const out = ["## Summary", ""];
  for (const org of p.organizations) {
    const c = organizationCounts(org);
    out.push(
      `**${cell(org.name)}** (organization ${org.id}): ${c.people} people, ${c.lines} lines of access, ${c.databases} databases reviewed; ` +
        `${c.attention.length} need attention${c.byReason.length ? ` (${c.byReason.map(([a, n]) => `${n} ${a}`).join(", ")})` : ""}, riskiest first.`,
      "",
    );
    if (c.attention.length === 0) continue;
    out.push("| person | name | why | access |", "|---|---|---|---|");
    for (const { person, why } of c.attention)
      out.push(
        `| ${cell(person.key)} | ${cell(person.name)} | ${why.map(reasonText).join("<br>")} | ${person.lines.map((l) => cell(lineText(l, o))).join("<br>")} |`,
      );
    out.push("");
  }
  return out;
}

/** The walls' status in one line: checked (what was found), or not checked and why. */
export function wallsStatus(p: ReviewPacket): string {
  const r = p.walls;
  if (!r) return "not checked (no stack given: pass --stack or --stack-state)";
  if (r.walls.length === 0) return `checked: ${r.source} declares no ethical wall`;
  const breaches = r.walls.flatMap((w) => w.breaches);
  const open = breaches.filter((b) => b.status === "open").length;
  const unenforceable = r.walls.reduce((n, w) => n + w.unenforceable.length, 0);
  return `checked: ${r.walls.length} wall(s) of ${r.source}; ${open} open breach(es), ${breaches.length - open} fixed, ${unenforceable} unenforceable`;
}

/** Per organization, what was not reviewed (each database with why), in words; empty when everything was read. */
export function notReviewedText(o: ReviewOrganization): string[] {
  return o.databasesNotReadable.map((d) => `Not reviewed: database ${d.id} ${d.name}: ${d.reason}.`);
}

/** The counts of "since the last review" in words, or why there is none. */
export function sinceText(o: ReviewOrganization, r: RenderOptions): string {
  if (!o.since) return "Since the last review: not compared (no --previous given).";
  const { gained, lost, changed } = o.since;
  return `Since the last review (as of ${timeText(o.since.previousAsOf, r)}): ${gained.length} gained, ${lost.length} lost, ${changed.length} changed.`;
}

/** The top of review.md: per organization what was not reviewed and what changed since the last review; the walls' status. */
function beforeYouSign(p: ReviewPacket, r: RenderOptions): string[] {
  const out = ["## Before you sign", "", `**Ethical walls:** ${wallsStatus(p)}.`, ""];
  for (const o of p.organizations) {
    out.push(`### ${cell(o.name)} (organization ${o.id})`, "");
    const not = notReviewedText(o);
    out.push(
      ...(not.length ? not.map((t) => `- **${cell(t)}**`) : ["- Not reviewed: nothing; every database of the organization was read."]),
    );
    out.push(`- ${sinceText(o, r)}`, "");
    if (o.since)
      out.push(
        ...changeRows("Gained", o.since.gained, r),
        ...changeRows("Lost", o.since.lost, r),
        ...changeRows("Changed", o.since.changed, r),
      );
  }
  return out;
}

function changeRows(title: string, changes: ReviewChange[], o: RenderOptions): string[] {
  if (changes.length === 0) return [`**${title}:** none.`, ""];
  return [
    `**${title}** (${changes.length}):`,
    "",
    "| person | access before | access now | who and when |",
    "|---|---|---|---|",
    ...changes.map(
      (c) =>
        `| ${cell(c.key)} | ${c.before ? cell(lineText(c.before, o)) : "—"} | ${c.after ? cell(lineText(c.after, o)) : "—"} | ${cell(zonedText(c.attribution, o))} |`,
    ),
    "",
  ];
}

/** The sentence an organization's section opens with: people, each judged flag's count, the events read. */
export function organizationLead(o: ReviewOrganization, p: ReviewPacket): string {
  const count = (f: string) => o.people.filter((x) => x.flags.includes(f as never)).length;
  return (
    `${o.people.length} people with access; ` +
    judgedFlags(p)
      .map((f) => `${count(f)} ${f}`)
      .join(", ") +
    `. ${o.eventsRead} events read from the activity log${o.eventsRedacted ? " (data hidden for a parent organization key)" : ""}.`
  );
}

/** A person's last activity in words: the time in the reviewer's zone, or "none since" the window's begin. */
export function lastActivityText(x: ReviewPerson, p: ReviewPacket, r: RenderOptions): string {
  return x.lastActivity ? timeText(x.lastActivity, r) : `none since ${timeText(p.activityWindow.begin, r)}`;
}

function organizationSection(o: ReviewOrganization, p: ReviewPacket, r: RenderOptions): string[] {
  const out = [`## ${cell(o.name)} (organization ${o.id})`, ""];
  out.push(organizationLead(o, p), "");
  const withCode = p.stack !== undefined;
  out.push(
    "### Everyone with access",
    "",
    "Riskiest first.",
    "",
    `| person | name | risk | access | last activity | flags |${withCode ? " in the stack's code |" : ""}`,
    `|---|---|---|---|---|---|${withCode ? "---|" : ""}`,
  );
  for (const { person: x, why } of risksOf(o)) {
    const code = withCode ? ` ${codeCell(x)} |` : "";
    out.push(
      `| ${cell(x.key)} | ${cell(x.name)} | ${why.join(", ")} | ${x.lines.map((l) => cell(lineText(l, r))).join("<br>")} | ${lastActivityText(x, p, r)} | ${x.flags.join(", ")} |${code}`,
    );
  }
  out.push("");
  return out;
}

/** What each kind of resource in the access program is, for people who do not read the code. */
const KIND_WORDS: Record<string, string> = {
  OrganizationMembers: "the organization's roster",
  DatabaseUsers: "the database's roster",
  OrgMember: "a membership",
  OrgMemberPermissions: "a person's permissions",
  DatabaseUserPermissions: "a database grant",
  Invitation: "an invitation",
  UserIdentifiers: "a person's identifiers",
  EthicalWall: "the ethical wall",
};

/**
 * A resource of the code in words, its kind kept for whoever looks it up:
 * `OrganizationMembers "legal"` -> `the organization's roster "legal" (OrganizationMembers)`.
 */
export function resourceText(label: string): string {
  const m = /^(\w+) ("[^"]*")(.*)$/s.exec(label);
  const words = m && KIND_WORDS[m[1]!];
  return words ? `${words} ${m[2]} (${m[1]})${m[3]}` : label;
}

/** What the code says of one line: who declares it, the permissions held beyond what they declare, and the end date, or "not in the code". */
export function codeLineText(c: LineInCode): string {
  return c.declaredBy.length === 0
    ? `${c.scope}: not in the code`
    : `${c.scope}: declared by ${c.declaredBy.map(resourceText).join(", ")}${c.notInCode?.length ? `; ${c.notInCode.join(" ")} not in code` : ""}${c.endsOn ? `, ends ${c.endsOn}` : ""}`;
}

/** The walls covering a person, in words: "walled by ...". */
export const wallsText = (x: ReviewPerson) => (x.inCode?.walls ?? []).map((w) => `walled by ${resourceText(w)}`);

/** The code column: per line, codeLineText; then the walls. */
function codeCell(x: ReviewPerson): string {
  return [...(x.inCode?.lines ?? []).map(codeLineText), ...wallsText(x)].map(cell).join("<br>");
}

/** The stale limits in words: "90 days; ORG_ADMIN 30 days". */
export function limitsText(p: ReviewPacket): string {
  const per = Object.entries(p.staleDaysByPrivilege ?? {}).map(([k, v]) => `${k} ${v} days`);
  return [`${p.staleDays} days`, ...per].join("; ");
}

/**
 * How the review was judged, as the lines of review.md's "How to read this review" (code spans in
 * backticks; review.html turns them into code elements): the activity window, the stale limits,
 * the stack judged against.
 */
export function readingNotes(p: ReviewPacket, r: RenderOptions): string[] {
  return [
    "Written by `pulumi-reviewadmin review` from the live service. Last activity is the latest event in the",
    `organization's activity log whose actor is the person, looked for from ${timeText(p.activityWindow.begin, r)} to ${timeText(p.activityWindow.end, r)};`,
    `a person with none within their limit (${limitsText(p)}; the strictest of the privileges they hold) is stale.`,
    ...(p.stack
      ? [`Judged against the code of ${p.stack.source} (${p.stack.resources} resources); expiring soon: within ${p.expiringDays} days.`]
      : []),
  ];
}

/** Each flag the packet judged with its meaning (the firm's domains named for external). */
export function flagLegend(p: ReviewPacket): [Flag, string][] {
  return judgedFlags(p).map((f) => [
    f,
    `${FLAG_MEANING[f]}${f === "external" && p.firmDomains.length ? ` (firm domains: ${p.firmDomains.join(", ")})` : ""}`,
  ]);
}

/** Said when no --firm-domain was given. */
export const NO_FIRM_DOMAIN = "No --firm-domain was given: the external flag is not judged.";

/** The title line: "Access review as of <time in the zone, named>". */
export const titleText = (p: ReviewPacket, r: RenderOptions) => `Access review as of ${timeText(p.asOf, r)}`;

/** The line under the title saying which zone the times are in. */
export const zoneNote = (r: RenderOptions) => `Times are in ${r.timeZone} (--time-zone); review.csv and review.json keep them in UTC.`;

/** Each severity with its meaning, riskiest first: the legend of the "why" and "risk" columns. */
export const severityLegend = (): [Severity, string][] => SEVERITY.map((x) => [x, SEVERITY_WORDS[x]]);

/** review.md: what was not reviewed, the changes and the walls first; then who needs attention; then everyone; the legend last. */
export function markdown(p: ReviewPacket, r: RenderOptions): string {
  const out = [`# ${titleText(p, r)}`, "", zoneNote(r), "", ...beforeYouSign(p, r), ...summary(p, r)];
  for (const o of p.organizations) out.push(...organizationSection(o, p, r));
  out.push(...wallSection(p, (iso) => timeText(iso, r)));
  out.push(
    "## How to read this review",
    "",
    ...readingNotes(p, r),
    "",
    "Risk, riskiest first (a privilege alone is not a reason: it raises what else is wrong with the line):",
    "",
    ...severityLegend().map(([x, meaning]) => `- **${x}**: ${meaning}.`),
    "",
    "Flags:",
    "",
    ...flagLegend(p).map(([f, meaning]) => `- **${f}**: ${meaning}.`),
    ...p.notJudged.map((n) => `- Not judged: ${n}.`),
    "",
  );
  if (p.firmDomains.length === 0) out.push(NO_FIRM_DOMAIN, "");
  return out.join("\n");
}
