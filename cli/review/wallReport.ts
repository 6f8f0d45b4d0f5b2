/**
 * The wall compliance report (issue 37): for a period, each ethical wall of a stack with the
 * breaches the activity log shows (who made them, when), when each was fixed and by whom (a
 * removal in the web application, or the wall's own `onBreach: "remove"`, kept in its state), what
 * is unenforceable and why, and the exceptions in force; as walls.md, walls.csv and walls.json.
 * What the service shows now (open breaches, unenforceable access, unreadable databases) is read
 * with the EthicalWall's own live read (readWallLive), so the report and refresh agree.
 *
 * Bounded: per organization owning a walled database, one read of its log over the period
 * (events.ts), and per wall the reads of one refresh.
 */
import { admittedBy, dayOf, exceptionStanding, exceptionText, wallCloses, type WallException, type WallRule } from "../../contract/grants";
import type { ActivityEvent } from "../../contract/types";
import type { ReviewAdminClient } from "../../provider/client";
import { describedDatabase } from "../../provider/access/databaseGrants";
import { actorText } from "../../provider/access/orgPeople";
import { csvLine, markdownCell as cell } from "../../provider/data/spreadsheetSafe";
import { readWallLive, type WallRemoval } from "../../provider/resources/ethicalWall";
import { compareText } from "../../provider/util";
import { isNotKnown, isObject, wallRuleOf, type ResourceInfo, type Wall } from "../../policy/declarations";
import { readLog } from "./events";

/** A breach the report found: made in the period (the log says by whom), or open now. */
export interface ReportedBreach {
  databaseId: number;
  userId: number;
  email: string;
  permissions: string[];
  /** When it was made and by whom ("user 1001"), as the log says; absent when the log of the period does not name it. */
  madeAt?: string;
  madeBy?: string;
  /** When and how it was fixed: "user 1001 in the web application", or "the wall (onBreach remove)". */
  fixedAt?: string;
  fixedBy?: string;
  /** fixed: a removal is recorded; open: the person holds the permissions now; gone: neither (fixed, when not recorded). */
  status: "fixed" | "open" | "gone";
}

/** Access the wall cannot take away, and why. */
export interface ReportedUnenforceable {
  databaseId: number;
  organizationId: number;
  userId: number;
  email: string;
  why: string;
  /** When they were made org admin and by whom, when the log of the period says. */
  madeAt?: string;
  madeBy?: string;
}

/** One wall's section. */
export interface WallSection {
  /** The resource name in the stack. */
  name: string;
  form: "people" | "team";
  reason: string;
  databaseIds: number[];
  breaches: ReportedBreach[];
  unenforceable: ReportedUnenforceable[];
  /** The exceptions in force on the last day of the period. */
  exceptionsInForce: WallException[];
  /** Databases whose users the key may not list: breaches there are not seen. */
  unreadableDatabaseIds: number[];
}

/** The report. */
export interface WallReport {
  /** The period, ISO 8601 (UTC), both ends included. */
  since: string;
  until: string;
  /** Where the walls came from ("stack prod", "state file state.json"). */
  source: string;
  walls: WallSection[];
}

const iso = (ms: number) => new Date(ms).toISOString();
/** Who acted, named as every message names people (provider/access/orgPeople.ts `actorText`). */
const by = (client: ReviewAdminClient, orgId: number, e: ActivityEvent) =>
  e.userId == null ? Promise.resolve("an unnamed actor") : actorText(client, orgId, e.userId);
const permissionsOf = (e: ActivityEvent) => (Array.isArray(e.data?.permissions) ? (e.data.permissions as string[]) : []);

/** The walls of the stack whose databases and people are known, with the removals their state holds. */
function wallsOf(
  walls: readonly Wall[],
  infos: readonly ResourceInfo[],
): { wall: Wall; rule: WallRule; databaseIds: number[]; removals: WallRemoval[] }[] {
  const out = [];
  for (const wall of walls) {
    const rule = wallRuleOf(wall);
    if (!rule || isNotKnown(wall.databaseIds)) continue;
    const props = infos.find((i) => i.urn === wall.res.urn)?.props ?? {};
    const removals = Array.isArray(props.removals) ? (props.removals.filter(isObject) as unknown as WallRemoval[]) : [];
    out.push({ wall, rule, databaseIds: wall.databaseIds, removals });
  }
  return out.sort((a, b) => compareText(a.wall.res.name, b.wall.res.name));
}

/**
 * Builds the report for [since, until] (unix ms) over the stack's walls: the log of each
 * organization owning a walled database read once, and each wall's live read. `read` holds the
 * logs a caller already read over a span covering the period (the review packet's), by
 * organization id: those are not read again.
 */
export async function buildWallReport(
  client: ReviewAdminClient,
  stack: { source: string; walls: readonly Wall[]; infos: readonly ResourceInfo[] },
  since: number,
  until: number,
  read: ReadonlyMap<number, readonly ActivityEvent[]> = new Map(),
): Promise<WallReport> {
  const logs = new Map<number, Promise<ActivityEvent[]>>();
  const logOf = (orgId: number) => {
    if (!logs.has(orgId)) {
      const known = read.get(orgId);
      logs.set(
        orgId,
        known
          ? Promise.resolve(known.filter((e) => e.timestamp >= since && e.timestamp <= until))
          : readLog(client, orgId, since, until).then((l) => l.events),
      );
    }
    return logs.get(orgId)!;
  };
  const sections: WallSection[] = [];
  for (const { wall, rule, databaseIds, removals } of wallsOf(stack.walls, stack.infos)) {
    const exceptions = wall.exceptions === undefined || isNotKnown(wall.exceptions) ? [] : wall.exceptions;
    const copy = (xs: readonly string[] | undefined) => (xs ? [...xs] : undefined);
    const judged = { databaseIds, people: copy(rule.people), team: copy(rule.team), alsoAllowed: copy(rule.alsoAllowed), exceptions };
    const live = await readWallLive(client, judged);
    const breaches: ReportedBreach[] = [];
    const unenforceable: ReportedUnenforceable[] = [];
    for (const databaseId of databaseIds) {
      const orgId = (await describedDatabase(client, databaseId)).owningOrganizationId;
      const events = await logOf(orgId);
      breaches.push(...(await breachesOn(databaseId, events, rule, exceptions, removals, (e) => by(client, orgId, e))));
      for (const b of live.breaches.filter((x) => x.databaseId === databaseId)) {
        const found = breaches.find((x) => x.databaseId === databaseId && x.userId === b.userId && x.status !== "fixed");
        if (found) found.status = "open";
        else breaches.push({ databaseId, userId: b.userId, email: b.email, permissions: [...b.permissions], status: "open" });
      }
      for (const u of live.unenforceable.filter((x) => x.databaseId === databaseId)) {
        const made = events
          .filter((e) => e.type === "USER_UPDATED" && e.data?.userId === u.userId && permissionsOf(e).includes("ORG_ADMIN"))
          .at(-1);
        unenforceable.push({
          ...u,
          why: `an org admin of organization ${u.organizationId}, and database ${databaseId} keeps orgAdminAccess on: org admins reach it, which the API cannot turn off (turn orgAdminAccess off in the web application, or take ORG_ADMIN from ${u.email})`,
          ...(made ? { madeAt: iso(made.timestamp), madeBy: await by(client, orgId, made) } : {}),
        });
      }
    }
    const lastDay = dayOf(until);
    sections.push({
      name: wall.res.name,
      form: rule.team ? "team" : "people",
      reason: typeof wall.reason === "string" ? wall.reason : "",
      databaseIds,
      breaches,
      unenforceable,
      exceptionsInForce: exceptions.filter((x) => exceptionStanding(x, lastDay) === "inForce"),
      unreadableDatabaseIds: live.unreadableDatabaseIds,
    });
  }
  return { since: iso(since), until: iso(until), source: stack.source, walls: sections };
}

/**
 * The breaches the log shows on one database: a grant (DATABASE_USER_UPDATED with permissions) to
 * someone the wall closes it to, whom no exception admitted that day; each fixed by the first
 * removal after it, in the log (the web application) or in the wall's removals (its own).
 * Status "gone" until the live read says "open".
 */
async function breachesOn(
  databaseId: number,
  events: readonly ActivityEvent[],
  rule: WallRule,
  exceptions: readonly WallException[],
  removals: readonly WallRemoval[],
  actor: (e: ActivityEvent) => Promise<string>,
): Promise<ReportedBreach[]> {
  const out: ReportedBreach[] = [];
  for (const e of events) {
    const d = e.data ?? {};
    if (d.databaseId !== databaseId || typeof d.userId !== "number") continue;
    const open = out.find((b) => b.userId === d.userId && b.status !== "fixed");
    const granted = e.type === "DATABASE_USER_UPDATED" && permissionsOf(e).length > 0;
    if (granted && !open) {
      const email = typeof d.email === "string" ? d.email.toLowerCase() : undefined;
      if (!email || !wallCloses(rule, email) || admittedBy(exceptions, email, dayOf(e.timestamp))) continue;
      const removed = removals.find((r) => r.databaseId === databaseId && r.userId === d.userId && Date.parse(r.removedAt) > e.timestamp);
      out.push({
        databaseId,
        userId: d.userId,
        email,
        permissions: permissionsOf(e),
        madeAt: iso(e.timestamp),
        madeBy: await actor(e),
        status: "gone",
        ...(removed ? { fixedAt: removed.removedAt, fixedBy: 'the wall (onBreach "remove")', status: "fixed" as const } : {}),
      });
    } else if (open && !granted && /^DATABASE_USER_(REMOVED|UPDATED)$/.test(e.type)) {
      // A web-app removal before any the wall recorded fixes it.
      if (!open.fixedAt || Date.parse(open.fixedAt) > e.timestamp)
        Object.assign(open, { fixedAt: iso(e.timestamp), fixedBy: `${await actor(e)} in the web application`, status: "fixed" });
    }
  }
  return out;
}

/** A wall's form in words: "matter team" or "people walled off". */
export const formText = (w: WallSection) => (w.form === "team" ? "matter team" : "people walled off");
/** A breach's status in words. */
export const statusText = (b: ReportedBreach) => (b.status === "gone" ? "no longer held (the removal is not recorded)" : b.status);

/** How wallReportMarkdown writes the report: as walls.md (the defaults), or as a section of review.md. */
export interface WallMarkdownOptions {
  title?: string;
  /** The title's heading level (1: `#`); each wall's is one deeper. */
  level?: number;
  /** How an ISO time is shown (review.md: in --time-zone, named); default as it is, in UTC. */
  time?: (iso: string) => string;
}

/** walls.md: per wall, the breaches in a table, then what is unenforceable and the exceptions in force. */
export function wallReportMarkdown(r: WallReport, o: WallMarkdownOptions = {}): string {
  const t = o.time ?? ((iso: string) => iso);
  const h = "#".repeat(o.level ?? 1);
  const lines = [
    `${h} ${o.title ?? "Ethical wall compliance report"}`,
    "",
    `Period: ${t(r.since)} to ${t(r.until)}${o.time ? "" : " (UTC)"}. Walls of ${r.source}.`,
    "Breaches are found in the activity log of the period; open breaches, unenforceable access and unreadable databases are as the service showed them when the report was made.",
  ];
  if (r.walls.length === 0) lines.push("", "The stack declares no ethical wall.");
  for (const w of r.walls) {
    const fixed = w.breaches.filter((b) => b.status === "fixed").length;
    lines.push(
      "",
      `${h}# ${cell(w.name)}: ${formText(w)} on database${w.databaseIds.length === 1 ? "" : "s"} ${w.databaseIds.join(", ")} (${cell(w.reason)})`,
      "",
    );
    lines.push(
      `Breaches: ${w.breaches.length} (${fixed} fixed, ${w.breaches.filter((b) => b.status === "open").length} open). Unenforceable: ${w.unenforceable.length}. Exceptions in force: ${w.exceptionsInForce.length}.`,
    );
    if (w.breaches.length) {
      lines.push(
        "",
        "| person | database | permissions | made | made by | fixed | fixed by | status |",
        "|---|---|---|---|---|---|---|---|",
      );
      for (const b of w.breaches)
        lines.push(
          `| ${cell(`${b.email} (user ${b.userId})`)} | ${b.databaseId} | ${b.permissions.join("+")} | ${b.madeAt ? t(b.madeAt) : "before the period, or not in the log"} | ${b.madeBy ?? ""} | ${b.fixedAt ? t(b.fixedAt) : ""} | ${cell(b.fixedBy ?? "")} | ${statusText(b)} |`,
        );
    }
    if (w.unenforceable.length) {
      lines.push("", "Unenforceable:", "");
      for (const u of w.unenforceable)
        lines.push(
          `- ${cell(u.email)} (user ${u.userId}) on database ${u.databaseId}: ${u.why}${u.madeAt ? `; made org admin at ${t(u.madeAt)} by ${u.madeBy}` : ""}.`,
        );
    }
    if (w.exceptionsInForce.length) {
      lines.push("", `Exceptions in force on ${r.until.slice(0, 10)}:`, "");
      for (const x of w.exceptionsInForce) lines.push(`- ${cell(exceptionText(x))}`);
    }
    for (const id of w.unreadableDatabaseIds)
      lines.push("", `Database ${id}: the API key may not list its users (orgAdminAccess is off): breaches there are not seen.`);
  }
  return lines.join("\n") + "\n";
}

/** The CSV columns, in order. */
export const WALL_REPORT_COLUMNS = [
  "wall",
  "kind",
  "person",
  "userId",
  "databaseId",
  "permissions",
  "madeAt",
  "madeBy",
  "fixedAt",
  "fixedBy",
  "status",
  "detail",
];

/** walls.csv: one row per breach, unenforceable access and exception in force; cells formula-safe. */
export function wallReportCsv(r: WallReport): string {
  const rows = [csvLine(WALL_REPORT_COLUMNS)];
  for (const w of r.walls) {
    for (const b of w.breaches)
      rows.push(
        csvLine([
          w.name,
          "breach",
          b.email,
          String(b.userId),
          String(b.databaseId),
          b.permissions.join("+"),
          b.madeAt ?? "",
          b.madeBy ?? "",
          b.fixedAt ?? "",
          b.fixedBy ?? "",
          b.status,
          "",
        ]),
      );
    for (const u of w.unenforceable)
      rows.push(
        csvLine([
          w.name,
          "unenforceable",
          u.email,
          String(u.userId),
          String(u.databaseId),
          "",
          u.madeAt ?? "",
          u.madeBy ?? "",
          "",
          "",
          "unenforceable",
          u.why,
        ]),
      );
    for (const x of w.exceptionsInForce)
      rows.push(csvLine([w.name, "exception", x.person, "", "", "", "", x.approver, "", "", "in force", exceptionText(x)]));
  }
  return rows.join("\n") + "\n";
}
