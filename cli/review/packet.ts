/**
 * The review packet as data: per organization, everyone with access (organization permissions
 * and identifiers, each database's permissions, pending and expired invitations), each person's
 * last activity from the activity log, and the flags a reviewer looks at first. Built from what
 * export/read.ts read and one read of the activity log (events.ts); every list sorted, no time but
 * the "as of" time, so two reviews of the same world are byte-identical. The file format it
 * builds is in format.ts.
 */
import { fullName } from "../../contract/people";
import type { ActivityEvent } from "../../contract/types";
import { staleLimitDays } from "../../provider/data/stalePrivileged";
import { compareText } from "../../provider/util";
import type { ExportedAccess, ExportedOrganization } from "../export/read";
import { compareKeys, FLAGS, linePrivileges, PACKET_FORMAT, type Flag, type ReviewPacket, type ReviewPerson } from "./format";
import { codeOf } from "./inCode";
import type { StackDeclarations } from "./stack";

/** What the packet needs of the review's options. */
export interface PacketOptions {
  asOf: number;
  staleDays: number;
  /** Per privilege, where given. */
  staleDaysByPrivilege?: Record<string, number>;
  firmDomains: string[];
  /** Default 14. */
  expiringDays?: number;
  /** The stack's declarations (--stack, --stack-state): the code flags are judged only with it. */
  stack?: StackDeclarations;
}

const DAY_MS = 86_400_000;
/** Days ahead expiring-soon looks by default. */
export const DEFAULT_EXPIRING_DAYS = 14;

/** The first instant of the activity window: the longest stale limit before "as of". */
export function windowBegin(o: PacketOptions): number {
  return o.asOf - Math.max(o.staleDays, ...Object.values(o.staleDaysByPrivilege ?? {})) * DAY_MS;
}

/**
 * Flags a packet without a stack cannot judge, said in it: end dates and walls are declared in
 * the program, not held by the service.
 */
export const NOT_JUDGED = [
  "not-in-code, expiring-soon, walled, wall-breach: end dates (expiresOn), ethical walls and what the code declares live in the program, not in the service: give --stack NAME or --stack-state FILE (the output of `pulumi stack export`)",
];

/** Orders lines: the organization first, then databases by id. */
function compareScopes(a: string, b: string): number {
  const da = /^database (\d+)$/.exec(a);
  const db = /^database (\d+)$/.exec(b);
  if (!da || !db) return da ? 1 : db ? -1 : 0;
  return Number(da[1]) - Number(db[1]);
}

function domainOf(email: string): string | undefined {
  const at = email.lastIndexOf("@");
  return at < 0 ? undefined : email.slice(at + 1).toLowerCase();
}

/** The people of one organization with their lines, last activity and flags. */
function peopleOf(org: ExportedOrganization, events: readonly ActivityEvent[], o: PacketOptions): ReviewPerson[] {
  const byKey = new Map<string, ReviewPerson>();
  const keyOfUser = new Map<number, string>();
  const person = (key: string, userId: number | null, name: string) => {
    let p = byKey.get(key);
    if (!p) byKey.set(key, (p = { key, userId, name, lines: [], lastActivity: null, flags: [] }));
    return p;
  };
  for (const m of org.members) {
    keyOfUser.set(m.userId, m.email);
    person(m.email, m.userId, fullName(m)).lines.push({
      scope: "organization",
      status: "member",
      permissions: [...m.permissions],
      identifiers: (m.identifiers ?? []).map((i) => `${i.abbreviation} ${i.label}`).sort(compareText),
    });
  }
  for (const i of org.invitations) {
    person(i.email, null, fullName(i)).lines.push({
      scope: "organization",
      status: i.expired ? "invitation-expired" : "invited",
      permissions: [...i.permissions],
      expires: i.expiration,
    });
  }
  for (const db of org.databases) {
    for (const g of db.grants) {
      const key = keyOfUser.get(g.userId) ?? `user ${g.userId}`;
      person(key, g.userId, g.who).lines.push({
        scope: `database ${db.id}`,
        database: db.name,
        status: "granted",
        permissions: [...g.permissions],
        active: g.active,
      });
    }
  }
  // Latest event per actor within the window (events come sorted by time, then id).
  const begin = windowBegin(o);
  const code = o.stack ? codeOf(o.stack.declared, org.id, o.asOf, o.expiringDays ?? DEFAULT_EXPIRING_DAYS) : undefined;
  const lastByActor = new Map<number, number>();
  for (const e of events) if (e.userId != null && e.timestamp >= begin && e.timestamp <= o.asOf) lastByActor.set(e.userId, e.timestamp);
  // When each person was last added to the organization, where the window's log says: someone added
  // yesterday has not had the stale window to be active in.
  const added = new Map<string, number>();
  for (const e of events) {
    if (e.type !== "USER_ADDED" || e.timestamp > o.asOf) continue;
    if (typeof e.data?.userId === "number") added.set(`user ${e.data.userId}`, e.timestamp);
    if (typeof e.data?.email === "string") added.set(e.data.email.toLowerCase(), e.timestamp);
  }

  const people = [...byKey.values()].sort((a, b) => compareKeys(a.key, b.key));
  for (const p of people) {
    p.lines.sort((a, b) => compareScopes(a.scope, b.scope));
    const last = p.userId === null ? undefined : lastByActor.get(p.userId);
    p.lastActivity = last === undefined ? null : new Date(last).toISOString();
    const judged = code?.(p);
    if (judged) p.inCode = judged.inCode;
    const addedAt = Math.max(added.get(p.key) ?? -Infinity, p.userId === null ? -Infinity : (added.get(`user ${p.userId}`) ?? -Infinity));
    p.flags = flagsOf(p, o, judged?.flags ?? [], addedAt);
  }
  return people;
}

/**
 * The privileges (contract/grants.ts) a person's lines hold. An expired invitation grants
 * nothing until re-sent: its permissions make no one privileged.
 */
function privilegesOf(p: ReviewPerson): string[] {
  const out = new Set<string>();
  for (const l of p.lines) {
    if (l.status === "invitation-expired") continue;
    linePrivileges(l).forEach((x) => out.add(x));
  }
  return [...out];
}

/** A person's stale limit in days: the data source's rule (staleLimitDays) over the privileges they hold. */
export function staleLimit(p: ReviewPerson, o: Pick<PacketOptions, "staleDays" | "staleDaysByPrivilege">): number {
  return staleLimitDays(privilegesOf(p), o.staleDays, o.staleDaysByPrivilege);
}

/**
 * Whether a person is stale: they hold a user account, existed for their whole stale window (not
 * added within it, by the log: `addedAt`, -Infinity when the log names no addition), and did
 * nothing as the actor within it.
 */
export function isStale(p: Pick<ReviewPerson, "userId" | "lastActivity">, limitDays: number, asOf: number, addedAt: number): boolean {
  const since = asOf - limitDays * DAY_MS;
  if (p.userId === null || addedAt > since) return false;
  return p.lastActivity === null || Date.parse(p.lastActivity) < since;
}

function flagsOf(p: ReviewPerson, o: PacketOptions, codeFlags: Flag[], addedAt: number): Flag[] {
  const flags = new Set<Flag>();
  const orgLine = p.lines.find((l) => l.scope === "organization");
  const dbLines = p.lines.filter((l) => l.status === "granted");
  if (privilegesOf(p).length > 0) flags.add("privileged");
  const domain = p.key.includes("@") ? domainOf(p.key) : undefined;
  if (o.firmDomains.length > 0 && !(domain && o.firmDomains.includes(domain))) flags.add("external");
  if (isStale(p, staleLimit(p, o), o.asOf, addedAt)) flags.add("stale");
  if (orgLine?.status === "member" && orgLine.permissions.length === 0 && dbLines.length === 0) flags.add("no-access");
  if (orgLine?.status === "invitation-expired" && dbLines.length === 0) flags.add("no-access");
  if (!orgLine && dbLines.length > 0) flags.add("not-a-member");
  if (orgLine?.status === "invitation-expired") flags.add("invitation-expired");
  if (dbLines.some((l) => l.active === false)) flags.add("suspended");
  for (const f of codeFlags) flags.add(f);
  return FLAGS.filter((f) => flags.has(f));
}

/** The packet of what was read; `events` by organization id, each sorted by (timestamp, id). */
export function buildPacket(
  access: ExportedAccess,
  events: Map<number, { events: ActivityEvent[]; redacted: boolean }>,
  o: PacketOptions,
): ReviewPacket {
  return {
    format: PACKET_FORMAT,
    asOf: new Date(o.asOf).toISOString(),
    staleDays: o.staleDays,
    staleDaysByPrivilege: Object.fromEntries(Object.entries(o.staleDaysByPrivilege ?? {}).sort(([a], [b]) => compareText(a, b))),
    expiringDays: o.expiringDays ?? DEFAULT_EXPIRING_DAYS,
    ...(o.stack ? { stack: { source: o.stack.source, resources: o.stack.resources } } : {}),
    activityWindow: { begin: new Date(windowBegin(o)).toISOString(), end: new Date(o.asOf).toISOString() },
    firmDomains: [...o.firmDomains].sort(compareText),
    notJudged: o.stack ? [] : [...NOT_JUDGED],
    organizations: access.organizations.map((org) => {
      const log = events.get(org.id) ?? { events: [], redacted: false };
      return {
        id: org.id,
        name: org.name,
        eventsRedacted: log.redacted,
        eventsRead: log.events.length,
        databases: org.databases.map((d) => ({ id: d.id, name: d.name })),
        databasesNotReadable: org.skippedDatabases.map((s) => ({ id: s.id, name: s.name, reason: s.reason })),
        people: peopleOf(org, log.events, o),
      };
    }),
  };
}
