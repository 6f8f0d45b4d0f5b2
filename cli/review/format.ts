/**
 * The review packet's file format, review.json: what a person, a line of access and a flag are,
 * and the packet's shape. Versioned (PACKET_FORMAT): `review --previous` and `review
 * apply-signoff` read packets written by earlier runs. packet.ts builds it; render.ts, since.ts,
 * signoff.ts, readPacket.ts and inCode.ts read it.
 */
import { DatabasePermission, OrganizationPermission } from "../../contract/schemas";
import { normalizeEmail, privilegesOf, type Grant, type Privilege, type Scope, type ScopeKind } from "../../contract/grants";
import { compareText } from "../../provider/util";
import type { WallReport } from "./wallReport";

/** review.json's text: what the packet folder holds, and what a sign-off's packet hash (SHA-256) is of. */
export const packetJson = (p: ReviewPacket) => JSON.stringify(p, null, 2) + "\n";

/** The version of review.json; a previous packet of another format is refused. */
export const PACKET_FORMAT = "pulumi-reviewadmin review 1";

/** Flags a person may carry, in the order the packet lists them. */
export const FLAGS = [
  "privileged",
  "external",
  "stale",
  "no-access",
  "not-a-member",
  "invitation-expired",
  "suspended",
  "not-in-code",
  "expiring-soon",
  "walled",
  "wall-breach",
] as const;
/** The flags judged from the stack's code (--stack or --stack-state), not from the service. */
export const CODE_FLAGS: readonly Flag[] = ["not-in-code", "expiring-soon", "walled", "wall-breach"];
/** One flag (see FLAG_MEANING). */
export type Flag = (typeof FLAGS)[number];

/** What each flag means, for the packet's legend. */
export const FLAG_MEANING: Record<Flag, string> = {
  privileged: `the line holds (or invites to) an organization permission (${OrganizationPermission.options.join(", ")}) or DB_ADMIN on a database`,
  external: "email domain is not one of the firm's (--firm-domain); only judged when a firm domain is given",
  stale:
    "a user with access and no event in the organization's activity log as the actor within their stale window (the strictest of their privileges' --stale-days); someone the log shows added within that window is not stale",
  "no-access": "a member with no organization permission and no database permission, or only an expired invitation",
  "not-a-member": "holds database permissions without being a member of the organization",
  "invitation-expired": "an invitation that expired without being accepted",
  suspended: "a database permission of a suspended account (the service's active: false)",
  "not-in-code":
    "holds access that no resource of the stack declares: a line of access (granted in the web app, or an additive roster's unmanaged person), or permissions beyond those the code declares for the line (an escalation made outside the code), which are named",
  "expiring-soon": 'access the stack\'s code ends (expiresOn) within --expiring-days of "as of", or ended and not yet removed by an up',
  walled: "an EthicalWall of the stack walls the person off some databases",
  "wall-breach": "walled, and holds permissions on a database their wall closes",
};

/**
 * Each permission in plain words, for the people who sign the review; the API's name goes beside
 * it. Typed over the contract's enums, so a permission the API gains fails the typecheck here.
 */
export const PERMISSION_WORDS: Record<OrganizationPermission | DatabasePermission, string> = {
  ORG_ADMIN: "administers the organization (people, invitations, settings)",
  CLOUD_MANAGEMENT_ADMIN: "administers the organization's cloud management",
  LEGAL_HOLD_ADMIN: "administers legal holds",
  AI_ADMIN: "administers AI features",
  DB_ADMIN: "administers the database",
  DB_UPLOAD: "uploads documents",
  DB_DELETE: "deletes documents",
  DB_LEGAL_HOLD: "places legal holds",
};

/** "uploads documents (DB_UPLOAD)"; an unknown name as it is. */
export function permissionText(permission: string): string {
  const words = (PERMISSION_WORDS as Record<string, string>)[permission];
  return words ? `${words} (${permission})` : permission;
}

/** One line of access: the organization itself, or one database. */
export interface AccessLine {
  /** "organization", or "database <id>". */
  scope: string;
  /** The database's name; absent for the organization line. */
  database?: string;
  /** member, invited (pending invitation), invitation-expired, or granted (a database permission). */
  status: "member" | "invited" | "invitation-expired" | "granted";
  /** The whole permission set, sorted. */
  permissions: string[];
  /** Organization line of a member: identifiers as "ABBR label", sorted. */
  identifiers?: string[];
  /** Invitations: ISO expiry. */
  expires?: string;
  /** Database lines: false for a suspended account. */
  active?: boolean;
}

/** The kind of scope of a line's `scope` text ("organization", "database <id>"). */
export function lineScopeKind(scope: string): ScopeKind {
  return scope === "organization" ? "organization" : "database";
}

/** The scope of a line of organization `orgId`'s packet: the organization, or the database its `scope` text names. */
export function lineScope(scope: string, orgId: number): Scope {
  return scope === "organization" ? { kind: "organization", id: orgId } : { kind: "database", id: Number(scope.slice("database ".length)) };
}

/**
 * The privileges a line holds (contract/grants.ts privilegesOf). An expired invitation's
 * permissions are still listed here: the packet's privileged flag leaves that line out.
 */
export function linePrivileges(l: Pick<AccessLine, "scope" | "permissions">): Privilege[] {
  return privilegesOf({ scope: { kind: lineScopeKind(l.scope) }, permissions: l.permissions });
}

/**
 * A line of a person's access in organization `orgId` as the grant it shows: the scope, the person
 * (their email when the key is one, and their user id), and the permissions.
 */
export function grantOfLine(l: AccessLine, p: Pick<ReviewPerson, "key" | "userId">, orgId: number): Grant {
  const subject = { ...(p.key.includes("@") ? { email: normalizeEmail(p.key) } : {}), userId: p.userId };
  return { scope: lineScope(l.scope, orgId), subject, permissions: l.permissions };
}

/** One person and their access in one organization. */
export interface ReviewPerson {
  /** The email (lower case), or "user <id>" for a database user who is not a member (no email to read). */
  key: string;
  userId: number | null;
  /** "First Last" or, for a non-member, what the database's user list says. */
  name: string;
  lines: AccessLine[];
  /** ISO time of the latest event whose actor is the person, within the activity window; null: none. */
  lastActivity: string | null;
  flags: Flag[];
  /** With a stack: per line of access, the resources declaring it and their end date; and the walls covering the person. */
  inCode?: PersonInCode;
}

/** A change since the previous review, with who made it from the activity log. */
export interface ReviewChange {
  key: string;
  scope: string;
  /** The line before (lost, changed) and after (gained, changed). */
  before?: AccessLine;
  after?: AccessLine;
  /** "changed at <time> by user <id>", or why the log cannot say. */
  attribution: string;
}

/** "Since the last review": what was gained, lost and changed between the two "as of" times. */
export interface SinceLastReview {
  previousAsOf: string;
  gained: ReviewChange[];
  lost: ReviewChange[];
  changed: ReviewChange[];
}

/** One organization of the packet. */
export interface ReviewOrganization {
  id: number;
  name: string;
  /** True when the log's events came without data and description (a parent organization key). */
  eventsRedacted: boolean;
  /** Events read from the activity log for this review (the activity window and the "since" span). */
  eventsRead: number;
  /** The organization's own databases whose users were read (reviewed), by id. */
  databases: { id: number; name: string }[];
  /** Databases whose users the key cannot read (not reviewed), with the reason. */
  databasesNotReadable: { id: number; name: string; reason: string }[];
  /** By key. */
  people: ReviewPerson[];
  since?: SinceLastReview;
}

/** review.json. */
export interface ReviewPacket {
  format: typeof PACKET_FORMAT;
  /** The time the review describes (ISO): events after it are not read. */
  asOf: string;
  /** The stale limit of people without a privilege of their own limit. */
  staleDays: number;
  /** Limits per privilege (ORG_ADMIN, DB_ADMIN, ...), where given; a person's is the strictest of theirs. */
  staleDaysByPrivilege: Record<string, number>;
  /** Days ahead "expiring-soon" looks (judged with a stack). */
  expiringDays: number;
  /** The stack whose code the code flags were judged against; absent: they were not judged. */
  stack?: { source: string; resources: number };
  /** The activity window: last activity is looked for in [begin, asOf]. */
  activityWindow: { begin: string; end: string };
  /** Lower case, sorted; empty: the external flag is not judged. */
  firmDomains: string[];
  /** Flags this version cannot judge, and why. */
  notJudged: string[];
  organizations: ReviewOrganization[];
  /**
   * With a stack: the wall compliance report of its walls for the period ending at "as of"
   * (wallReport.ts, as `review walls` writes it); absent without a stack, where no wall is known.
   */
  walls?: WallReport;
}

/** What the code says of one line of a person's access. */
export interface LineInCode {
  scope: string;
  /** The resources declaring the line (kind and name); empty: none. */
  declaredBy: string[];
  /**
   * The permissions held on the line that no declaring resource declares (all of them when none
   * declares the line): an escalation made outside the code. Absent when none, or when a
   * declaration's permissions are not known.
   */
  notInCode?: string[];
  /** The earliest end date the declaring resources set. */
  endsOn?: string;
}

/** What the code says of one person (review.json's `inCode`). */
export interface PersonInCode {
  /** Per line of access, by scope. */
  lines: LineInCode[];
  /** The walls covering the person, with their reasons. */
  walls: string[];
}

/** Orders keys: emails by text, then "user <id>" by id. */
export function compareKeys(a: string, b: string): number {
  const ua = /^user (\d+)$/.exec(a);
  const ub = /^user (\d+)$/.exec(b);
  if (ua && ub) return Number(ua[1]) - Number(ub[1]);
  if (ua || ub) return ua ? 1 : -1;
  return compareText(a, b);
}
