/**
 * The packet's three files: review.md for people, review.csv for spreadsheets (one row per line of
 * access, formula-safe), review.json for tools (and the next review's --previous). Pure functions
 * of the packet, so the files are as deterministic as it is.
 */
import { csvLine, markdownCell as cell } from "../../provider/data/spreadsheetSafe";
import {
  CODE_FLAGS,
  FLAG_MEANING,
  FLAGS,
  type AccessLine,
  type ReviewChange,
  type ReviewOrganization,
  type ReviewPacket,
  type ReviewPerson,
} from "./format";

/** The files of a packet, by name. */
export function renderPacket(p: ReviewPacket): Record<string, string> {
  return { "review.md": markdown(p), "review.csv": csv(p), "review.json": JSON.stringify(p, null, 2) + "\n" };
}

/** The access a line grants, in words: "member: ORG_ADMIN", "invited (expires 2026-12-01): none". */
export function lineText(l: AccessLine): string {
  const perms = l.permissions.length ? l.permissions.join(" ") : "no permissions";
  const what =
    l.status === "granted"
      ? `${l.database} (${l.scope})${l.active === false ? ", suspended account" : ""}`
      : l.status === "member"
        ? "member"
        : l.status === "invited"
          ? `invited, expires ${l.expires?.slice(0, 10)}`
          : `invitation expired ${l.expires?.slice(0, 10)}`;
  const ids = l.identifiers?.length ? `; identifiers ${l.identifiers.join(", ")}` : "";
  return `${what}: ${perms}${ids}`;
}

const CSV_HEADER = [
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
  "flags",
  "declared_by",
  "ends_on",
  "permissions_not_in_code",
  // Left empty for the reviewer: the file is the sign-off template of review apply-signoff.
  "decision",
  "justification",
];

/** The flags a packet judged: the code flags only with a stack. */
const judgedFlags = (p: ReviewPacket) => FLAGS.filter((f) => p.stack !== undefined || !CODE_FLAGS.includes(f));

/** What the stack's code says of one line of the person's access (empty without a stack). */
const codeLine = (person: ReviewPerson, scope: string) => person.inCode?.lines.find((c) => c.scope === scope);

function csv(p: ReviewPacket): string {
  const rows = [CSV_HEADER];
  for (const o of p.organizations) {
    for (const person of o.people) {
      for (const l of person.lines) {
        rows.push([
          String(o.id),
          o.name,
          person.key,
          person.userId === null ? "" : String(person.userId),
          person.name,
          l.scope,
          l.database ?? "",
          l.status === "granted" && l.active === false ? "granted (suspended)" : l.status,
          l.permissions.join(" "),
          (l.identifiers ?? []).join("; "),
          l.expires ?? "",
          person.lastActivity ?? "",
          person.flags.join(" "),
          (codeLine(person, l.scope)?.declaredBy ?? []).join("; "),
          codeLine(person, l.scope)?.endsOn ?? "",
          (codeLine(person, l.scope)?.notInCode ?? []).join(" "),
          "",
          "",
        ]);
      }
    }
  }
  return rows.map(csvLine).join("\r\n") + "\r\n";
}

function changeRows(title: string, changes: ReviewChange[]): string[] {
  if (changes.length === 0) return [`**${title}:** none.`, ""];
  return [
    `**${title}** (${changes.length}):`,
    "",
    "| person | access before | access now | who and when |",
    "|---|---|---|---|",
    ...changes.map(
      (c) =>
        `| ${cell(c.key)} | ${c.before ? cell(lineText(c.before)) : "—"} | ${c.after ? cell(lineText(c.after)) : "—"} | ${cell(c.attribution)} |`,
    ),
    "",
  ];
}

function organizationSection(o: ReviewOrganization, p: ReviewPacket): string[] {
  const count = (f: string) => o.people.filter((x) => x.flags.includes(f as never)).length;
  const out = [`## ${cell(o.name)} (organization ${o.id})`, ""];
  out.push(
    `${o.people.length} people with access; ` +
      judgedFlags(p)
        .map((f) => `${count(f)} ${f}`)
        .join(", ") +
      `. ${o.eventsRead} events read from the activity log${o.eventsRedacted ? " (data hidden for a parent organization key)" : ""}.`,
    "",
  );
  for (const d of o.databasesNotReadable) out.push(`- Not reviewed: database ${d.id} ${cell(d.name)}: ${cell(d.reason)}.`);
  if (o.databasesNotReadable.length) out.push("");
  if (o.since) {
    out.push(`### Since the last review (as of ${o.since.previousAsOf})`, "");
    out.push(...changeRows("Gained", o.since.gained), ...changeRows("Lost", o.since.lost), ...changeRows("Changed", o.since.changed));
  }
  const withCode = p.stack !== undefined;
  out.push(
    "### Everyone with access",
    "",
    `| person | name | access | last activity | flags |${withCode ? " in the stack's code |" : ""}`,
    `|---|---|---|---|---|${withCode ? "---|" : ""}`,
  );
  for (const x of o.people) {
    const code = withCode ? ` ${codeCell(x)} |` : "";
    out.push(
      `| ${cell(x.key)} | ${cell(x.name)} | ${x.lines.map((l) => cell(lineText(l))).join("<br>")} | ${x.lastActivity ?? `none since ${p.activityWindow.begin.slice(0, 10)}`} | ${x.flags.join(", ")} |${code}`,
    );
  }
  out.push("");
  return out;
}

/**
 * The code column: per line, the declaring resources, the permissions held beyond what they
 * declare, and the end date, or "not declared"; then the walls.
 */
function codeCell(x: ReviewPerson): string {
  const lines = (x.inCode?.lines ?? []).map((c) =>
    c.declaredBy.length === 0
      ? `${c.scope}: not declared`
      : `${c.scope}: ${c.declaredBy.join(", ")}${c.notInCode?.length ? `; ${c.notInCode.join(" ")} not in code` : ""}${c.endsOn ? `, ends ${c.endsOn}` : ""}`,
  );
  const walls = (x.inCode?.walls ?? []).map((w) => `walled by ${w}`);
  return [...lines, ...walls].map(cell).join("<br>");
}

/** The stale limits in words: "90 days; ORG_ADMIN 30 days". */
function limitsText(p: ReviewPacket): string {
  const per = Object.entries(p.staleDaysByPrivilege ?? {}).map(([k, v]) => `${k} ${v} days`);
  return [`${p.staleDays} days`, ...per].join("; ");
}

function markdown(p: ReviewPacket): string {
  const out = [
    `# Access review as of ${p.asOf}`,
    "",
    "Written by `pulumi-reviewadmin review` from the live service. Last activity is the latest event in the",
    `organization's activity log whose actor is the person, looked for from ${p.activityWindow.begin} to ${p.activityWindow.end};`,
    `a person with none within their limit (${limitsText(p)}; the strictest of the privileges they hold) is stale.`,
    ...(p.stack
      ? [`Judged against the code of ${p.stack.source} (${p.stack.resources} resources); expiring soon: within ${p.expiringDays} days.`]
      : []),
    "",
    "Flags:",
    "",
    ...judgedFlags(p).map(
      (f) =>
        `- **${f}**: ${FLAG_MEANING[f]}${f === "external" && p.firmDomains.length ? ` (firm domains: ${p.firmDomains.join(", ")})` : ""}.`,
    ),
    ...p.notJudged.map((n) => `- Not judged: ${n}.`),
    "",
  ];
  if (p.firmDomains.length === 0) out.push("No --firm-domain was given: the external flag is not judged.", "");
  for (const o of p.organizations) out.push(...organizationSection(o, p));
  return out.join("\n");
}
