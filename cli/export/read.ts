/**
 * The reading half of `pulumi-reviewadmin export`: what the key can administer, and the access of
 * those organizations as plain sorted data (the model the writers render). Lists only, in pages of
 * 200: the members (E18) and the invitations (E14) of each organization, its databases (E9), and
 * the users of each database (E23), so the requests are ceil(members/200) + one per 200 users of
 * each database + a few per organization.
 */
import type {
  Database,
  DatabasePermission,
  DatabaseUser,
  Invitation,
  Member,
  Organization,
  OrganizationPermission,
  User,
} from "../../contract";
import type { Grant } from "../../contract/grants";
import { personLabel } from "../../contract/people";
import type { ReviewAdminClient } from "../../provider/client";
import { describeCause, explainFailure, isStatus } from "../../provider/failures";
import { normalizeEmail, normalizeIdentifiers, sortedSet, type Identifier } from "../../provider/normalize";
import { compareText, mapLimit } from "../../provider/util";
import { plural } from "../command";

/** What to read. */
export interface ExportScope {
  /** Organization ids; undefined: every organization the key administers. */
  organizations?: number[];
  /** Read database grants (every database of those organizations the key can administer). */
  grants: boolean;
  /** Read pending and expired invitations. */
  invitations: boolean;
  /** Read user identifiers. */
  identifiers: boolean;
}

/** A member as exported: emails lower-cased, sets sorted. */
export interface ExportedMember {
  email: string;
  userId: number;
  firstName?: string;
  lastName?: string;
  permissions: OrganizationPermission[];
  /** Undefined when identifiers are not exported. */
  identifiers?: Identifier[];
}

/** A pending or expired invitation as exported. */
export interface ExportedInvitation {
  email: string;
  firstName?: string;
  lastName?: string;
  permissions: OrganizationPermission[];
  /** ISO timestamp. */
  expiration: string;
  expired: boolean;
}

/** One user's permissions on a database: a grant's subject and permissions (see {@link grantsOfExport}), with how the export names the user. */
export interface ExportedGrant {
  userId: number;
  permissions: DatabasePermission[];
  /** False for a suspended account (the service's `active`). */
  active: boolean;
  /** "First Last <email>" for a member of the organization, else the user's name and username. */
  who: string;
  /** Whether the user is a member of the organization that owns the database. */
  member: boolean;
}

/** A database and its grants, sorted by user id. */
export interface ExportedDatabase {
  id: number;
  name: string;
  grants: ExportedGrant[];
}

/** A database of the organization whose users the key cannot read, and why. */
export interface SkippedDatabase {
  id: number;
  name: string;
  reason: string;
}

/** One organization's access, every list sorted. */
export interface ExportedOrganization {
  id: number;
  name: string;
  /** By email. */
  members: ExportedMember[];
  /** Pending and expired invitations by email; people who are members already are left out. */
  invitations: ExportedInvitation[];
  /** By id; empty when grants are not exported. */
  databases: ExportedDatabase[];
  skippedDatabases: SkippedDatabase[];
}

/** Everything an export read. */
export interface ExportedAccess {
  scope: ExportScope;
  /** The user the key acts as (E2), as the read found it. */
  actingAs?: User;
  /** By id. */
  organizations: ExportedOrganization[];
}

/**
 * What an organization's export holds as grants (contract/grants.ts): each member's membership,
 * each pending invitation (an expired one grants nothing), each user's permissions on each database.
 */
export function grantsOfExport(org: ExportedOrganization): Grant[] {
  const scope = { kind: "organization", id: org.id } as const;
  return [
    ...org.members.map((m) => ({ scope, subject: { email: m.email, userId: m.userId }, permissions: m.permissions })),
    ...org.invitations.filter((i) => !i.expired).map((i) => ({ scope, subject: { email: i.email }, permissions: i.permissions })),
    ...org.databases.flatMap((db) =>
      db.grants.map((g) => ({
        scope: { kind: "database", id: db.id } as const,
        subject: { userId: g.userId },
        permissions: g.permissions,
      })),
    ),
  ];
}

/** A refusal before anything is written: the key cannot export what was asked. */
export class ExportRefused extends Error {
  override readonly name = "ExportRefused";
}

/** "102 (Northwind Legal)". */
const named = (o: { id: number; name: string }) => `${o.id} (${o.name})`;

/** Runs one read, turning a failure into one line saying what was being read. */
async function reading<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw explainFailure(`reading ${what}`, err);
  }
}

/**
 * The organizations to export: those asked for, each of which the key must administer (org admin:
 * listing members and invitations needs it), or by default every organization it administers.
 * E2 says which organizations the key's user belongs to and where it is org admin; E3 (only to
 * explain a refusal) which others it can see.
 */
async function organizationsToExport(
  client: ReviewAdminClient,
  me: User,
  wanted: number[] | undefined,
): Promise<{ id: number; name: string }[]> {
  const mine = me.organizations ?? [];
  const administered = mine.filter((o) => o.orgAdmin).map((o) => ({ id: o.id, name: o.name }));
  if (wanted === undefined) {
    if (administered.length > 0) return administered.sort((a, b) => a.id - b.id);
    const memberOf = mine.map(named).join(", ");
    throw new ExportRefused(
      `the key administers no organization: exporting needs org admin (an organization-level key, or the key of a member with ORG_ADMIN)` +
        (memberOf ? `; its user is a member of ${memberOf} without ORG_ADMIN` : ""),
    );
  }
  const out: { id: number; name: string }[] = [];
  let visible: Organization[] | undefined;
  for (const id of [...new Set(wanted)].sort((a, b) => a - b)) {
    const membership = mine.find((o) => o.id === id);
    if (membership?.orgAdmin) {
      out.push({ id, name: membership.name });
      continue;
    }
    if (membership) {
      throw new ExportRefused(
        `the key lacks org admin on organization ${named(membership)}: its user is a member without ORG_ADMIN, and listing members and invitations needs org admin`,
      );
    }
    visible ??= await reading("the organizations the key can see", () => client.listAll("GetOrganizations", {}));
    const seen = visible.find((o) => o.id === id);
    if (seen) {
      const parent = seen.parentOrganizationId != null ? administered.find((o) => o.id === seen.parentOrganizationId) : undefined;
      throw new ExportRefused(
        `the key lacks org admin on organization ${named(seen)}` +
          (parent
            ? `: it is parent org admin (of ${named(parent)}), which does not reach members and invitations; use a key of organization ${id}`
            : ""),
      );
    }
    const sees = visible.map(named).join(", ");
    throw new ExportRefused(`unknown organization ${id}: the key can see ${sees || "no organization"}`);
  }
  return out;
}

function exportedMember(m: Member, identifiers: boolean): ExportedMember {
  return {
    email: normalizeEmail(m.email),
    userId: m.id,
    ...(m.firstName != null ? { firstName: m.firstName } : {}),
    ...(m.lastName != null ? { lastName: m.lastName } : {}),
    permissions: sortedSet(m.permissions),
    ...(identifiers ? { identifiers: normalizeIdentifiers(m.userIdentifiers ?? []) } : {}),
  };
}

function exportedInvitation(i: Invitation): ExportedInvitation {
  return {
    email: normalizeEmail(i.email),
    ...(i.firstName != null ? { firstName: i.firstName } : {}),
    ...(i.lastName != null ? { lastName: i.lastName } : {}),
    permissions: sortedSet(i.organizationPermissions),
    expiration: i.expiration,
    expired: i.expired,
  };
}

const byEmail = <T extends { email: string }>(a: T, b: T) => compareText(a.email, b.email);

/** Why the key cannot read a database's users, for the comment in access.ts. */
function skipReason(orgAdminAccess: boolean, err: unknown): string {
  if (!orgAdminAccess)
    return "org admin access is off on it and the key holds no DB_ADMIN on it (the key of one of its database admins can read it)";
  return describeCause(err);
}

/** Receives one progress line at a time (the command prints them on stderr). */
export type ReadProgress = (line: string) => void;

function grantOf(u: DatabaseUser, members: Map<number, Member>): ExportedGrant {
  const m = members.get(u.user.id);
  return {
    userId: u.user.id,
    permissions: sortedSet(u.permissions),
    active: u.active,
    who: m
      ? personLabelOf(m.firstName, m.lastName, normalizeEmail(m.email))
      : personLabelOf(u.user.firstName, u.user.lastName, u.user.username),
    member: !!m,
  };
}

/**
 * The users of each of the organization's databases (E23, 8 lists in flight), with a progress
 * line at every tenth; a database the key may not read (403) is skipped with the reason.
 */
async function readDatabases(
  client: ReviewAdminClient,
  org: { id: number; name: string },
  databases: Database[],
  members: Map<number, Member>,
  progress: ReadProgress,
): Promise<{ databases: ExportedDatabase[]; skipped: SkippedDatabase[] }> {
  const skipped: SkippedDatabase[] = [];
  let read = 0;
  let grants = 0;
  let reported = 0;
  const readOne = async (db: Database): Promise<ExportedDatabase | undefined> => {
    let users: DatabaseUser[];
    try {
      users = await client.listAll("GetDatabaseUsers", { databaseId: db.id });
    } catch (err) {
      if (!isStatus(err, 403)) throw explainFailure(`reading the users of database ${named(db)}`, err);
      skipped.push({ id: db.id, name: db.name, reason: skipReason(db.orgAdminAccess, err) });
      return undefined;
    } finally {
      read += 1;
    }
    const exported = users
      .filter((u) => u.permissions.length > 0)
      .map((u) => grantOf(u, members))
      .sort((a, b) => a.userId - b.userId);
    grants += exported.length;
    const tenth = Math.floor((read / databases.length) * 10);
    if (databases.length >= 10 && tenth > reported) {
      reported = tenth;
      progress(`organization ${named(org)}: ${read} of ${plural(databases.length, "database")} read, ${plural(grants, "grant")} so far`);
    }
    return { id: db.id, name: db.name, grants: exported };
  };
  const exported = (await mapLimit(databases, 8, readOne)).filter((d): d is ExportedDatabase => d !== undefined);
  skipped.sort((a, b) => a.id - b.id);
  // Worded for export and review alike (both read through here): what the key cannot read, and whose key can.
  for (const s of skipped) progress(`organization ${named(org)}: database ${named(s)} not readable with this key: ${s.reason}`);
  return { databases: exported, skipped };
}

/** Every member of an organization, page by page, with a progress line every MEMBERS_PER_PROGRESS. */
async function readMembers(client: ReviewAdminClient, org: { id: number; name: string }, progress: ReadProgress): Promise<Member[]> {
  const members: Member[] = [];
  for await (const m of client.paginate("GetOrganizationUsers", { orgId: org.id })) {
    members.push(m);
    if (members.length % MEMBERS_PER_PROGRESS === 0) progress(`organization ${named(org)}: ${plural(members.length, "member")} read`);
  }
  return members;
}

/** Members between two progress lines while an organization's members are read (10 pages of 200). */
const MEMBERS_PER_PROGRESS = 2000;

/** One organization's members, invitations and (with grants) databases. */
async function readOrganization(
  client: ReviewAdminClient,
  org: { id: number; name: string },
  scope: ExportScope,
  progress: ReadProgress,
): Promise<ExportedOrganization> {
  progress(`organization ${named(org)}: reading members${scope.invitations ? ", invitations" : ""}${scope.grants ? " and databases" : ""}`);
  const [members, invitations, databases] = await Promise.all([
    reading(`the members of organization ${named(org)}`, () => readMembers(client, org, progress)),
    scope.invitations
      ? reading(`the invitations of organization ${named(org)}`, () => client.call("GetOrganizationInvitations", { orgId: org.id })).then(
          (d) => d.invitations,
        )
      : Promise.resolve([] as Invitation[]),
    scope.grants
      ? reading(`the databases of organization ${named(org)}`, () => client.listAll("GetOrganizationDatabases", { orgId: org.id }))
      : Promise.resolve([] as Database[]),
  ]);
  const exportedMembers = members.map((m) => exportedMember(m, scope.identifiers)).sort(byEmail);
  const memberEmails = new Set(exportedMembers.map((m) => m.email));
  // A member wins over an invitation of the same email, as in the rosters.
  const exportedInvitations = invitations
    .map(exportedInvitation)
    .filter((i) => !memberEmails.has(i.email))
    .sort(byEmail);
  const expired = exportedInvitations.filter((i) => i.expired).length;
  progress(
    `organization ${named(org)}: ${plural(members.length, "member")}` +
      (scope.invitations ? `, ${plural(exportedInvitations.length, "invitation")} (${expired} expired)` : "") +
      (scope.grants ? `, ${plural(databases.length, "database")}` : ""),
  );
  const own = databases.filter((d) => d.owningOrganizationId === org.id).sort((a, b) => a.id - b.id);
  const read = await readDatabases(client, org, own, new Map(members.map((m) => [m.id, m])), progress);
  return {
    id: org.id,
    name: org.name,
    members: exportedMembers,
    invitations: exportedInvitations,
    databases: read.databases,
    skippedDatabases: read.skipped,
  };
}

/**
 * Reads the access the key can export, within `scope`. Throws ExportRefused (or a one-line
 * failure naming what was being read) before anything is written.
 */
export async function readAccess(
  client: ReviewAdminClient,
  scope: ExportScope,
  progress: ReadProgress = () => {},
): Promise<ExportedAccess> {
  const me = await reading("the key's own account (GET /v1/users/me)", () => client.call("GetCurrentUser", {}));
  const organizations: ExportedOrganization[] = [];
  // One organization at a time: the client paces every request of the key anyway.
  for (const org of await organizationsToExport(client, me, scope.organizations))
    organizations.push(await readOrganization(client, org, scope, progress));
  return { scope, actingAs: me, organizations };
}

/** "Ada Lovelace <ada@northwind.example>", or just the email when there is no name (contract/people.ts). */
function personLabelOf(
  firstName: string | null | undefined,
  lastName: string | null | undefined,
  email: string | null | undefined,
): string {
  return personLabel({ firstName, lastName, email }) || "(no name)";
}
