/**
 * A grant of access as plain data, and the rules that belong to it: who (the subject) holds what
 * (membership, permissions, identifiers) where (an organization or a database), from when to when
 * (the window), declared by which resource. No I/O and no zod, and nothing of the project beyond
 * the contract's types: the provider's planner, the policy pack and the CLI all build on it.
 */
import type { DatabasePermission, OrganizationPermission } from "./types";

/** Where access is granted. */
export type ScopeKind = "organization" | "database";

/** One organization or one database. */
export interface Scope {
  kind: ScopeKind;
  id: number;
}

/** The organization scope of anything that names an `organizationId`. */
export const organizationScope = (x: { organizationId: number }): Scope => ({ kind: "organization", id: x.organizationId });

/** The database scope of anything that names a `databaseId`. */
export const databaseScope = (x: { databaseId: number }): Scope => ({ kind: "database", id: x.databaseId });

/** Who holds it: an email (lower-cased), a user id, or both when known. */
export interface Subject {
  email?: string;
  userId?: number | null;
}

/** The first day of access and the day it ends (both "YYYY-MM-DD", UTC; access ends at the start of `expiresOn`). */
export interface GrantWindow {
  startsOn?: string;
  expiresOn?: string;
}

/** A user identifier as granted (an abbreviation and its label). */
export interface GrantIdentifier {
  abbreviation: string;
  label: string;
}

/**
 * A grant. At an organization it is a membership (or an invitation to one), with the permissions
 * and identifiers the declaring resource manages; at a database it is the user's permissions there.
 * A field left out is not managed: it is neither compared nor written.
 */
export interface Grant {
  scope: Scope;
  subject: Subject;
  permissions?: readonly (OrganizationPermission | DatabasePermission | string)[];
  identifiers?: readonly GrantIdentifier[];
  window?: GrantWindow;
  /** The declaring resource, as messages name it. */
  declaredBy?: string;
}

/** Email as stored and compared: trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// Administration and privilege

/** The organization permissions, spelled as the spec spells them (contract/schemas.ts validates with this list). */
export const ORGANIZATION_PERMISSIONS = [
  "ORG_ADMIN",
  "CLOUD_MANAGEMENT_ADMIN",
  "LEGAL_HOLD_ADMIN",
  "AI_ADMIN",
] as const satisfies readonly OrganizationPermission[];

/** The organization permission that administers an organization. */
export const ORG_ADMIN = "ORG_ADMIN" satisfies OrganizationPermission;
/** The database permission that administers a database. */
export const DB_ADMIN = "DB_ADMIN" satisfies DatabasePermission;

/** The permission that administers a scope: whoever holds it manages everyone's access there. */
export const ADMIN_PERMISSION = { organization: ORG_ADMIN, database: DB_ADMIN } as const satisfies Record<ScopeKind, string>;

/** How messages name the administrators of a scope: "org admin", "DB_ADMIN". */
export const ADMIN_NAME: Record<ScopeKind, string> = { organization: "org admin", database: "DB_ADMIN" };

/** True when `permissions` administer a scope of this kind. */
export function administers(kind: ScopeKind, permissions: readonly string[] | undefined): boolean {
  return !!permissions?.includes(ADMIN_PERMISSION[kind]);
}

/**
 * True when going from the permissions `have` to `want` (undefined: the grant removed) takes away
 * the permission that administers the scope: what anti-lockout judges (provider/access/plan.ts).
 */
export function takesAdmin(kind: ScopeKind, have: readonly string[] | undefined, want: readonly string[] | undefined): boolean {
  return administers(kind, have) && !administers(kind, want);
}

/**
 * True for a privileged permission: at an organization every permission (each administers
 * something), at a database DB_ADMIN (it manages everyone's permissions there).
 */
export function isPrivileged(kind: ScopeKind, permission: string): boolean {
  return kind === "organization" ? (ORGANIZATION_PERMISSIONS as readonly string[]).includes(permission) : permission === DB_ADMIN;
}

/**
 * The privileges: every organization permission, and DB_ADMIN on a database. A person holding one
 * is privileged (the review packet's flag, getStalePrivilegedPeople); each may have a stale limit
 * of its own (`staleDaysByPrivilege`, `review --stale-days PRIVILEGE=N`).
 */
export const PRIVILEGES = [...ORGANIZATION_PERMISSIONS, DB_ADMIN] as const;
/** One of {@link PRIVILEGES}. */
export type Privilege = (typeof PRIVILEGES)[number];

/** The privileges among the permissions someone holds on an organization or on a database, in their order. */
export function privilegesAmong(kind: ScopeKind, permissions: readonly string[]): Privilege[] {
  return permissions.filter((p) => isPrivileged(kind, p)) as Privilege[];
}

/**
 * The privileges a grant holds ({@link privilegesAmong} over its permissions): only the kind of its
 * scope matters, so a line that knows no organization id can ask too.
 */
export function privilegesOf(g: { scope: Pick<Scope, "kind"> } & Pick<Grant, "permissions">): Privilege[] {
  return privilegesAmong(g.scope.kind, g.permissions ?? []);
}

/** True when a grant holds a privilege: the review packet's "privileged" flag, the matrix's "admin" shade. */
export function isPrivilegedGrant(g: { scope: Pick<Scope, "kind"> } & Pick<Grant, "permissions">): boolean {
  return privilegesOf(g).length > 0;
}

// ---------------------------------------------------------------------------------------------
// The window

const DAY_FORMAT = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar day written YYYY-MM-DD ("2026-02-30" is not one). */
export function isCalendarDay(text: string): boolean {
  const m = DAY_FORMAT.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === text;
}

/** A day as YYYY-MM-DD in UTC. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (both YYYY-MM-DD). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** Where one grant stands on a day. */
export type Standing = "active" | "soon" | "expired" | "notYet";

/** Where a grant stands on `day`: expired from its `expiresOn` day on, "soon" within `soonDays` of it, "notYet" before `startsOn`. */
export function standingOn(w: GrantWindow | undefined, day: string, soonDays: number): Standing {
  if (w?.expiresOn && day >= w.expiresOn) return "expired";
  if (w?.startsOn && day < w.startsOn) return "notYet";
  if (w?.expiresOn && daysBetween(day, w.expiresOn) <= soonDays) return "soon";
  return "active";
}

// ---------------------------------------------------------------------------------------------
// Claims: who in a run declares a grant (the provider's handover)

/** What a claim is about: a person's presence in an organization, one of their fields, or a database grant. */
export type ClaimKind = "member" | "permissions" | "identifiers" | "grant";

/** A claim key: `member:102:email:ada@x.example`, `member:102:user:1003`, `grant:2001:1003`, ... */
export type ClaimKey = string;

/** The keys naming a person of an organization, by every identity known (email and/or user id). */
export function personKeys(kind: Exclude<ClaimKind, "grant">, orgId: number, who: Subject): ClaimKey[] {
  const keys: ClaimKey[] = [];
  if (who.email) keys.push(`${kind}:${orgId}:email:${normalizeEmail(who.email)}`);
  if (who.userId) keys.push(`${kind}:${orgId}:user:${who.userId}`);
  return keys;
}

/**
 * What declaring a person in an organization claims (an OrgMember, a roster's entry): their
 * membership, and each field the declaration manages.
 */
export function memberClaims(orgId: number, who: Subject, manages: { permissions?: unknown; userIdentifiers?: unknown }): ClaimKey[] {
  return [
    ...personKeys("member", orgId, who),
    ...(manages.permissions ? personKeys("permissions", orgId, who) : []),
    ...(manages.userIdentifiers ? personKeys("identifiers", orgId, who) : []),
  ];
}

/** The key of one user's grant on one database. */
export function grantKey(databaseId: number, userId: number | string): ClaimKey {
  return `grant:${databaseId}:${userId}`;
}

/** The keys under which a grant's presence is claimed: its membership of an organization, or its database grant. */
export function claimKeysOf(g: Pick<Grant, "scope" | "subject">): ClaimKey[] {
  if (g.scope.kind === "database") return g.subject.userId ? [grantKey(g.scope.id, g.subject.userId)] : [];
  return personKeys("member", g.scope.id, g.subject);
}

/** True when two grants are claimed under a common key: the same person (by email or user id) in the same scope. */
export function sameClaim(a: Pick<Grant, "scope" | "subject">, b: Pick<Grant, "scope" | "subject">): boolean {
  const keys = new Set(claimKeysOf(a));
  return claimKeysOf(b).some((k) => keys.has(k));
}

/**
 * True when an activity event's `data` names this grant: its subject (by user id, or by email
 * whatever its case) in its scope (a database's events carry its `databaseId`, an organization's
 * carry none). Refresh's who-changed and the packet's "since the last review" read the log through it.
 */
export function eventNamesGrant(data: Readonly<Record<string, unknown>> | null | undefined, g: Pick<Grant, "scope" | "subject">): boolean {
  const d = data ?? {};
  const { email, userId } = g.subject;
  const person =
    (userId != null && d.userId === userId) || (email !== undefined && typeof d.email === "string" && d.email.toLowerCase() === email);
  return person && (g.scope.kind === "organization" ? d.databaseId === undefined : d.databaseId === g.scope.id);
}

// ---------------------------------------------------------------------------------------------
// Walls

/**
 * True when an ethical wall's `people` entry covers `email`: the same address, or a domain pattern
 * `*@domain` of its domain. The entry is as the wall stores it (lower-cased); the email is trimmed
 * and lower-cased here. The EthicalWall resource, the access matrix, the review packet and the
 * pack's ethical-walls policy read a wall through it.
 */
export function wallCovers(entry: string, email: string): boolean {
  const e = normalizeEmail(email);
  return entry.startsWith("*@") ? e.endsWith(entry.slice(1)) : e === entry;
}

/**
 * What a wall says about people, before exceptions: exclusionary (`people`: these are walled off)
 * or matter-team (`team`, with `alsoAllowed`: everyone else is walled off). Entries as `wallCovers`
 * reads them.
 */
export interface WallRule {
  people?: readonly string[];
  team?: readonly string[];
  alsoAllowed?: readonly string[];
}

/** The form rule of a wall: exactly one of people and team. */
export const WALL_FORM_RULE = "give exactly one of people (who is walled off) or team (the matter team: everyone else is walled off)";

/**
 * What is wrong with a wall's form, each with the field to name: both or neither of `people` and
 * `team`, or `alsoAllowed` without a team. The EthicalWall resource and getAccessMatrix's `walls`
 * check a wall through it, so both say the same.
 */
export function wallFormProblems(w: WallRule): { field: keyof WallRule; message: string }[] {
  const out: { field: keyof WallRule; message: string }[] = [];
  if (w.people && w.team) out.push({ field: "team", message: `${WALL_FORM_RULE}, not both` });
  if (!w.people && !w.team) out.push({ field: "people", message: WALL_FORM_RULE });
  if (w.alsoAllowed && !w.team)
    out.push({ field: "alsoAllowed", message: "is for a matter-team wall (team) only: a wall of people admits everyone it does not name" });
  return out;
}

/**
 * True when the wall closes its databases to `email` (exceptions aside): an exclusionary wall to the
 * people it names, a matter-team wall to everyone its team and alsoAllowed do not cover. The
 * EthicalWall resource, the policy pack and the wall report judge a person through it.
 */
export function wallCloses(w: WallRule, email: string): boolean {
  if (w.team) return ![...w.team, ...(w.alsoAllowed ?? [])].some((entry) => wallCovers(entry, email));
  return (w.people ?? []).some((entry) => wallCovers(entry, email));
}

/**
 * True when the wall closes its databases to a grant's subject (exceptions aside): by email as
 * {@link wallCloses}; a subject without an email (a database user the platform names by id only)
 * cannot be on a team, so a matter-team wall closes to them and a wall of people does not.
 */
export function wallClosesTo(w: WallRule, subject: Subject): boolean {
  return subject.email === undefined ? !!w.team : wallCloses(w, subject.email);
}

/** An approved exception to a wall: `person` may reach the wall's databases from `startsOn` until `endsOn`. */
export interface WallException {
  /** The admitted person's email (lower-cased). */
  person: string;
  /** Who approved it (an email). */
  approver: string;
  /** Why it was approved (a client waiver, a partner's approval). */
  reason: string;
  /** The client's consent or waiver, as the firm files it. */
  clientConsentRef?: string;
  /** First day in force (YYYY-MM-DD, UTC); absent: from the start. */
  startsOn?: string;
  /** The day it ends (YYYY-MM-DD, UTC): no longer in force from the start of that day, as a grant's expiresOn. */
  endsOn: string;
}

/** Where an exception stands on `day`: in force, ended (the person is walled again), or not yet begun. */
export function exceptionStanding(x: Pick<WallException, "startsOn" | "endsOn">, day: string): "inForce" | "ended" | "notYet" {
  const st = standingOn({ startsOn: x.startsOn, expiresOn: x.endsOn }, day, 0);
  return st === "expired" ? "ended" : st === "notYet" ? "notYet" : "inForce";
}

/** The exception in force on `day` that admits `email`, if any. */
export function admittedBy<X extends WallException>(exceptions: readonly X[], email: string, day: string): X | undefined {
  return exceptions.find((x) => x.person === normalizeEmail(email) && exceptionStanding(x, day) === "inForce");
}

/** One line naming an exception: "ken@x (approved by gc@x: client waiver; consent W-12; until 2026-12-01)". */
export function exceptionText(x: WallException): string {
  const parts = [`approved by ${x.approver}: ${x.reason}`];
  if (x.clientConsentRef) parts.push(`client consent ${x.clientConsentRef}`);
  if (x.startsOn) parts.push(`from ${x.startsOn}`);
  parts.push(`until ${x.endsOn}`);
  return `${x.person} (${parts.join("; ")})`;
}
