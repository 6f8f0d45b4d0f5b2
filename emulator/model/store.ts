/**
 * The emulator's world: every organization, user, membership, database, project, invitation,
 * directory and API key (records.ts), behind one Store class.
 *
 * The store knows nothing of HTTP. Its methods hold the service's rules (what E19 does with an
 * unknown email, what E20 removes) so the API handlers and the control API share them; lookups
 * throw the named errors of ../errors.ts (NotFound, ...), which are mapped to statuses in one
 * place. Every change a person could make in the web UI is a plain method here, so the control
 * API can make it "behind the program's back" without auth.
 *
 * The whole state is plain data (`toJSON`/`load`), so `--state file.json` can keep a demo
 * world across restarts.
 */
import type { DatabasePermission, OrganizationPermission, UserIdentifier } from "../../contract/types";
import { NotFound } from "./errors";
import type { BillingHistories } from "./billingHistory";
import { Clock, type ClockOption } from "./clock";
import { EventLog } from "./eventLog";
import { keyIdOf, mintKeyText } from "./keys";
import { prng } from "./random";
import type {
  Caller,
  DatabaseRecord,
  DatabaseUserRecord,
  DirectoryRecord,
  DocCountsRecord,
  EventRecord,
  IdCounters,
  InvitationRecord,
  KeyRecord,
  MembershipRecord,
  OrganizationRecord,
  ProjectRecord,
  UserRecord,
  WorldSnapshot,
} from "./records";
import { addSyntheticDatabases, addSyntheticMembers } from "./seed";

/** What E19 did for each person: unparseable emails, invitations (new or existing), memberships. */
export interface AddUsersOutcome {
  invalid: string[];
  invites: InvitationRecord[];
  users: MembershipRecord[];
}

/** Where each kind's ids start, so ids read as what they are (101 an org, 1001 a user). */
function initialIds(): IdCounters {
  return { organization: 101, user: 1001, database: 2001, project: 3001, invitation: 4001, directory: 5001, event: 1 };
}

/** An invitation is valid for 14 days after it was (re)sent (contract). */
export const INVITATION_LIFETIME_MS = 14 * 24 * 3600 * 1000;

/** Loose email check: one @, something either side, a dot in the domain, no spaces. */
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** True when `email` can be parsed as an address (E19 puts the others in `invalid`). */
export function isValidEmail(email: string): boolean {
  return EMAIL_RE.test(email.trim());
}

/** Emails are compared case-insensitively everywhere. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/** How a Store starts: its clock and the seed of its PRNG. */
export interface StoreOptions {
  /** The emulator clock (default: real time). */
  clock?: ClockOption;
  /** Seeds the PRNG used for keys and synthetic data. */
  seed?: number;
}

/** A listener told after every change (the state file uses it to save). */
export type ChangeListener = () => void;

/** Fields E22 may change; a field left out is left as it is. */
export interface MemberUpdate {
  permissions?: OrganizationPermission[];
  userIdentifiers?: UserIdentifier[];
}

/** A new user's fields (control API, invitation acceptance, synthetic members). */
export interface NewUser {
  email: string;
  firstName?: string;
  lastName?: string;
  title?: string;
  username?: string;
}

/** The emulator's whole state and the rules that change it. */
export class Store {
  readonly clock: Clock;
  /** PRNG for keys and synthetic data; deterministic from the seed. */
  random: () => number;

  nextId: IdCounters = initialIds();
  readonly organizations = new Map<number, OrganizationRecord>();
  readonly users = new Map<number, UserRecord>();
  /** organization id → user id → membership. */
  readonly memberships = new Map<number, Map<number, MembershipRecord>>();
  readonly databases = new Map<number, DatabaseRecord>();
  /** database id → user id → permissions. */
  readonly databaseUsers = new Map<number, Map<number, DatabaseUserRecord>>();
  readonly projects = new Map<number, ProjectRecord>();
  readonly invitations = new Map<number, InvitationRecord>();
  readonly directories = new Map<number, DirectoryRecord>();
  readonly keys = new Map<string, KeyRecord>();
  /** The activity log, in append order (ids increase). */
  events: EventRecord[] = [];
  /** Billing history per project id; billingHistory.ts computes every bill from it. */
  billing: BillingHistories = {};
  /** Roles of the seeded world to their keys. */
  namedKeys: Record<string, string> = {};
  /**
   * State of the domain modules (uploads, ...), each under its own name. Kept
   * here so reset and --state cover it; each module owns the shape of its entry.
   */
  extensions: Record<string, unknown> = {};

  /** Lower-cased email → user id (platform users only, not key users). */
  private readonly userByEmail = new Map<string, number>();
  /** user id → organization ids of its memberships. */
  private readonly orgsOfUser = new Map<number, Set<number>>();
  private readonly listeners = new Set<ChangeListener>();

  constructor(options: StoreOptions = {}) {
    this.clock = new Clock(options.clock);
    this.random = prng(options.seed ?? 1);
  }

  // ----- change notification -----

  /** Calls `listener` after every change; returns a function that stops it. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells listeners that the state changed. Domain modules call it after their own changes. */
  changed(): void {
    for (const l of this.listeners) l();
  }

  /** Next id of a kind. */
  allocateId(kind: keyof IdCounters): number {
    return this.nextId[kind]++;
  }

  // ----- organizations -----

  /** The organization, or NotFound. */
  organization(id: number): OrganizationRecord {
    const org = this.organizations.get(id);
    if (!org) throw new NotFound("organization", id);
    return org;
  }

  /** Creates an organization (seed and control API; the API cannot). */
  createOrganization(input: { name: string; parentOrganizationId?: number | null }): OrganizationRecord {
    if (input.parentOrganizationId != null) this.organization(input.parentOrganizationId);
    const org: OrganizationRecord = {
      id: this.allocateId("organization"),
      name: input.name,
      parentOrganizationId: input.parentOrganizationId ?? null,
      saml: { entityId: null, mfaBypass: false, state: "DISABLED", updated: null },
    };
    this.organizations.set(org.id, org);
    this.memberships.set(org.id, new Map());
    this.changed();
    return org;
  }

  /** Direct sub-organizations of an organization. */
  subOrganizations(parentId: number): OrganizationRecord[] {
    return [...this.organizations.values()].filter((o) => o.parentOrganizationId === parentId);
  }

  // ----- users -----

  /** The user, or NotFound. Key users (behind organization keys) count as users here. */
  user(id: number): UserRecord {
    const user = this.users.get(id);
    if (!user) throw new NotFound("user", id);
    return user;
  }

  /** The platform user with this email (case-insensitive), if any. */
  findUserByEmail(email: string): UserRecord | undefined {
    const id = this.userByEmail.get(emailKey(email));
    return id === undefined ? undefined : this.users.get(id);
  }

  /** Creates a platform user (no memberships yet). */
  createUser(input: NewUser, primaryOrganization: number | null = null): UserRecord {
    const email = input.email.trim();
    const local = email.split("@")[0] ?? email;
    const user: UserRecord = {
      id: this.allocateId("user"),
      firstName: input.firstName ?? local,
      lastName: input.lastName ?? "",
      title: input.title ?? "",
      username: input.username ?? emailKey(email),
      email,
      primaryOrganization,
      lastActivity: null,
      lastLoggedOut: null,
      mfaRequired: false,
      active: true,
    };
    this.addUserRecord(user);
    this.changed();
    return user;
  }

  private addUserRecord(user: UserRecord): void {
    this.users.set(user.id, user);
    if (user.apiKeyOf === undefined) this.userByEmail.set(emailKey(user.email), user.id);
  }

  // ----- memberships -----

  /** The membership, or undefined. */
  findMembership(organizationId: number, userId: number): MembershipRecord | undefined {
    return this.memberships.get(organizationId)?.get(userId);
  }

  /** The membership, or NotFound naming the user within the organization. */
  membership(organizationId: number, userId: number): MembershipRecord {
    const m = this.findMembership(organizationId, userId);
    if (!m) throw new NotFound(`member of organization ${organizationId}:`, userId);
    return m;
  }

  /** Members of an organization, in id order. */
  membersOf(organizationId: number): MembershipRecord[] {
    this.organization(organizationId);
    return [...(this.memberships.get(organizationId)?.values() ?? [])].sort((a, b) => a.userId - b.userId);
  }

  /** Organization ids a user is a member of, in id order. */
  organizationsOf(userId: number): number[] {
    return [...(this.orgsOfUser.get(userId) ?? [])].sort((a, b) => a - b);
  }

  /**
   * Adds a user to an organization with the given permissions. An existing member is left as
   * it is and returned (adding someone twice is not an error). Writes a USER_ADDED event.
   */
  addMember(
    organizationId: number,
    userId: number,
    permissions: OrganizationPermission[] = [],
    actorId: number | null = null,
  ): MembershipRecord {
    this.organization(organizationId);
    const user = this.user(userId);
    const existing = this.findMembership(organizationId, userId);
    if (existing) return existing;
    const m: MembershipRecord = { organizationId, userId, permissions: unique(permissions), userIdentifiers: [] };
    this.putMembership(m);
    if (user.primaryOrganization === null) user.primaryOrganization = organizationId;
    this.appendEvent(organizationId, "USER_ADDED", actorId, `${user.email} was added to the organization`, {
      userId,
      email: user.email,
      permissions: m.permissions,
    });
    this.changed();
    return m;
  }

  /**
   * Adds a membership without writing an event: the world as it already was (seeding, synthetic
   * data), not a change anyone made. An existing membership is replaced.
   */
  seedMembership(
    organizationId: number,
    userId: number,
    permissions: OrganizationPermission[] = [],
    userIdentifiers: UserIdentifier[] = [],
  ): MembershipRecord {
    this.organization(organizationId);
    const user = this.user(userId);
    const m: MembershipRecord = {
      organizationId,
      userId,
      permissions: unique(permissions),
      userIdentifiers: userIdentifiers.map((i) => ({ ...i })),
    };
    this.putMembership(m);
    if (user.primaryOrganization === null) user.primaryOrganization = organizationId;
    this.changed();
    return m;
  }

  private putMembership(m: MembershipRecord): void {
    let byUser = this.memberships.get(m.organizationId);
    if (!byUser) this.memberships.set(m.organizationId, (byUser = new Map()));
    byUser.set(m.userId, m);
    let orgs = this.orgsOfUser.get(m.userId);
    if (!orgs) this.orgsOfUser.set(m.userId, (orgs = new Set()));
    orgs.add(m.organizationId);
  }

  /** E22: sets the fields given; a field left out is left as it is. Writes USER_UPDATED. */
  updateMember(organizationId: number, userId: number, update: MemberUpdate, actorId: number | null = null): MembershipRecord {
    this.organization(organizationId);
    const m = this.membership(organizationId, userId);
    if (update.permissions !== undefined) m.permissions = unique(update.permissions);
    if (update.userIdentifiers !== undefined)
      m.userIdentifiers = update.userIdentifiers.map((i) => ({ abbreviation: i.abbreviation, label: i.label }));
    this.appendEvent(organizationId, "USER_UPDATED", actorId, `${this.user(userId).email} was updated`, {
      userId,
      permissions: m.permissions,
      userIdentifiers: m.userIdentifiers,
    });
    this.changed();
    return m;
  }

  /**
   * E20: removes the member from the organization and from the projects of the organization's
   * databases (the spec: "also removes the user from the organization's projects"). Database
   * permissions stay: the spec removes those only through E24. Writes USER_REMOVED.
   */
  removeMember(organizationId: number, userId: number, actorId: number | null = null): void {
    this.organization(organizationId);
    this.membership(organizationId, userId);
    this.memberships.get(organizationId)!.delete(userId);
    this.orgsOfUser.get(userId)?.delete(organizationId);
    for (const db of this.databasesOf(organizationId)) {
      for (const p of this.projectsOf(db.id)) p.userIds = p.userIds.filter((id) => id !== userId);
    }
    const user = this.user(userId);
    if (user.primaryOrganization === organizationId) user.primaryOrganization = this.organizationsOf(userId)[0] ?? null;
    this.appendEvent(organizationId, "USER_REMOVED", actorId, `${user.email} was removed from the organization`, {
      userId,
      email: user.email,
    });
    this.changed();
  }

  /**
   * E19: for each person, an existing platform user becomes a member (an existing member is
   * returned unchanged), an unknown email gets an invitation (an existing invitation for that
   * email is returned, not duplicated), an unparseable email lands in `invalid`.
   */
  addUsers(
    organizationId: number,
    people: { email: string; firstName: string; lastName: string }[],
    permissions: OrganizationPermission[] = [],
    actorId: number | null = null,
  ): AddUsersOutcome {
    this.organization(organizationId);
    const outcome: AddUsersOutcome = { invalid: [], invites: [], users: [] };
    const seen = new Set<string>();
    for (const person of people) {
      if (!isValidEmail(person.email)) {
        outcome.invalid.push(person.email);
        continue;
      }
      // The same email twice in one request is one person.
      if (seen.has(emailKey(person.email))) continue;
      seen.add(emailKey(person.email));
      const user = this.findUserByEmail(person.email);
      if (user) {
        outcome.users.push(this.addMember(organizationId, user.id, permissions, actorId));
      } else {
        outcome.invites.push(
          this.findInvitation(organizationId, person.email) ?? this.createInvitation(organizationId, { ...person, permissions }, actorId),
        );
      }
    }
    return outcome;
  }

  // ----- invitations -----

  /** True when the invitation's expiration is before the emulator's now. */
  isExpired(inv: InvitationRecord): boolean {
    return Date.parse(inv.expiration) < this.clock.now();
  }

  /** Invitations of an organization (pending and expired), in id order. */
  invitationsOf(organizationId: number): InvitationRecord[] {
    this.organization(organizationId);
    return [...this.invitations.values()].filter((i) => i.organizationId === organizationId);
  }

  /** The organization's invitation for this email (case-insensitive), if any. */
  findInvitation(organizationId: number, email: string): InvitationRecord | undefined {
    const key = emailKey(email);
    return this.invitationsOf(organizationId).find((i) => emailKey(i.email) === key);
  }

  /** The invitation, or NotFound naming the email. */
  invitation(organizationId: number, email: string): InvitationRecord {
    this.organization(organizationId);
    const inv = this.findInvitation(organizationId, email);
    if (!inv) throw new NotFound(`invitation of organization ${organizationId} for`, email);
    return inv;
  }

  /** Sends a new invitation, valid for 14 days. Writes INVITATION_SENT unless `options.event` is false (seeding). */
  createInvitation(
    organizationId: number,
    input: { email: string; firstName?: string; lastName?: string; permissions?: OrganizationPermission[] },
    actorId: number | null = null,
    options: { event?: boolean } = {},
  ): InvitationRecord {
    this.organization(organizationId);
    const now = this.clock.now();
    const inv: InvitationRecord = {
      id: this.allocateId("invitation"),
      organizationId,
      email: input.email.trim(),
      firstName: input.firstName ?? "",
      lastName: input.lastName ?? "",
      invitedBy: actorId,
      // Invitations made through the API need no second approval: the inviter approves.
      approvedBy: actorId,
      permissions: unique(input.permissions ?? []),
      sent: new Date(now).toISOString(),
      expiration: new Date(now + INVITATION_LIFETIME_MS).toISOString(),
    };
    this.invitations.set(inv.id, inv);
    if (options.event !== false)
      this.appendEvent(organizationId, "INVITATION_SENT", actorId, `An invitation was sent to ${inv.email}`, {
        email: inv.email,
        permissions: inv.permissions,
      });
    this.changed();
    return inv;
  }

  /** E15: sends the invitation again and resets its expiration to 14 days from now. Writes INVITATION_RESENT. */
  resendInvitation(organizationId: number, email: string, actorId: number | null = null): InvitationRecord {
    const inv = this.invitation(organizationId, email);
    const now = this.clock.now();
    inv.sent = new Date(now).toISOString();
    inv.expiration = new Date(now + INVITATION_LIFETIME_MS).toISOString();
    this.appendEvent(organizationId, "INVITATION_RESENT", actorId, `The invitation to ${inv.email} was sent again`, { email: inv.email });
    this.changed();
    return inv;
  }

  /** E13: deletes the invitation (pending or expired). Writes INVITATION_DELETED. */
  deleteInvitation(organizationId: number, email: string, actorId: number | null = null): void {
    const inv = this.invitation(organizationId, email);
    this.invitations.delete(inv.id);
    this.appendEvent(organizationId, "INVITATION_DELETED", actorId, `The invitation to ${inv.email} was deleted`, { email: inv.email });
    this.changed();
  }

  /** Control API: makes the invitation expire now (as if 14 days had passed). */
  expireInvitation(organizationId: number, email: string): InvitationRecord {
    const inv = this.invitation(organizationId, email);
    inv.expiration = new Date(this.clock.now() - 1).toISOString();
    this.changed();
    return inv;
  }

  /**
   * Control API: the invitee accepts. Creates the user when the email is new, adds the
   * membership with the invitation's permissions and deletes the invitation. An expired
   * invitation cannot be accepted (NotFound would hide why, so the caller checks first).
   */
  acceptInvitation(organizationId: number, email: string): { user: UserRecord; membership: MembershipRecord } {
    const inv = this.invitation(organizationId, email);
    const user =
      this.findUserByEmail(inv.email) ??
      this.createUser({ email: inv.email, firstName: inv.firstName || undefined, lastName: inv.lastName }, organizationId);
    this.invitations.delete(inv.id);
    // The inviter is the actor of the resulting USER_ADDED event.
    const membership = this.addMember(organizationId, user.id, inv.permissions, inv.invitedBy);
    this.changed();
    return { user, membership };
  }

  // ----- databases and projects -----

  /** The database, or NotFound. */
  database(id: number): DatabaseRecord {
    const db = this.databases.get(id);
    if (!db) throw new NotFound("database", id);
    return db;
  }

  /** Databases owned by an organization, in id order. */
  databasesOf(organizationId: number): DatabaseRecord[] {
    return [...this.databases.values()].filter((d) => d.owningOrganizationId === organizationId);
  }

  /** Creates a database owned by an organization (seed and control API). */
  createDatabase(input: { owningOrganizationId: number; name: string; orgAdminAccess?: boolean; created?: string }): DatabaseRecord {
    this.organization(input.owningOrganizationId);
    const id = this.allocateId("database");
    const docs = 1000 + Math.floor(this.random() * 50_000);
    const counts = (share: number): DocCountsRecord => {
      const docCount = Math.round(docs * share);
      return { docCount, imageSize: docCount * 41_000, nativeSize: docCount * 230_000, textSize: docCount * 6_500 };
    };
    const db: DatabaseRecord = {
      id,
      name: input.name,
      owningOrganizationId: input.owningOrganizationId,
      orgAdminAccess: input.orgAdminAccess ?? true,
      created: input.created ?? this.clock.iso(),
      databaseFields: [{ name: "Matter number", type: "TEXT", value: `M-${id}` }],
      size: { nativeDocs: counts(1), processedDocs: counts(0.8), producedDocs: counts(0.1) },
    };
    this.databases.set(id, db);
    this.databaseUsers.set(id, new Map());
    this.changed();
    return db;
  }

  /** Control API: turns org admin access of a database on or off. */
  setOrgAdminAccess(databaseId: number, orgAdminAccess: boolean): DatabaseRecord {
    const db = this.database(databaseId);
    db.orgAdminAccess = orgAdminAccess;
    this.changed();
    return db;
  }

  /** The project, or NotFound. */
  project(id: number): ProjectRecord {
    const p = this.projects.get(id);
    if (!p) throw new NotFound("project", id);
    return p;
  }

  /** Projects of a database, in id order. */
  projectsOf(databaseId: number): ProjectRecord[] {
    return [...this.projects.values()].filter((p) => p.databaseId === databaseId);
  }

  /** Creates a project in a database (seed and control API). */
  createProject(input: {
    databaseId: number;
    name: string;
    displayName?: string;
    partial?: boolean;
    eca?: boolean;
    suspended?: boolean;
    created?: string;
    userIds?: number[];
  }): ProjectRecord {
    this.database(input.databaseId);
    const p: ProjectRecord = {
      id: this.allocateId("project"),
      databaseId: input.databaseId,
      name: input.name,
      displayName: input.displayName ?? input.name,
      created: input.created ?? this.clock.iso(),
      eca: input.eca ?? false,
      partial: input.partial ?? false,
      mfaRequired: false,
      productionMode: false,
      suspended: input.suspended ?? false,
      emailThreadingStatus: "IN_PROGRESS",
      lastLogin: null,
      userIds: [...(input.userIds ?? [])],
    };
    this.projects.set(p.id, p);
    this.changed();
    return p;
  }

  // ----- database users -----

  /** Users with permissions on a database, in user id order. */
  databaseUsersOf(databaseId: number): DatabaseUserRecord[] {
    this.database(databaseId);
    return [...this.databaseUsers.get(databaseId)!.values()].sort((a, b) => a.userId - b.userId);
  }

  /** The user's permissions on the database, or undefined. */
  findDatabaseUser(databaseId: number, userId: number): DatabaseUserRecord | undefined {
    return this.databaseUsers.get(databaseId)?.get(userId);
  }

  /** The user's permissions on the database, or NotFound. */
  databaseUser(databaseId: number, userId: number): DatabaseUserRecord {
    this.database(databaseId);
    const du = this.findDatabaseUser(databaseId, userId);
    if (!du) throw new NotFound(`user of database ${databaseId}:`, userId);
    return du;
  }

  /**
   * E26: overwrites the user's database permissions. The user must exist on the platform. An
   * empty set removes the user from the database's list (a holder with no permission is no
   * holder); the answer still shows the user with no permissions.
   */
  setDatabaseUser(databaseId: number, userId: number, permissions: DatabasePermission[]): DatabaseUserRecord {
    this.database(databaseId);
    const user = this.user(userId);
    if (user.apiKeyOf !== undefined) throw new NotFound("user", userId);
    const record: DatabaseUserRecord = { databaseId, userId, permissions: unique(permissions) };
    if (record.permissions.length === 0) this.databaseUsers.get(databaseId)!.delete(userId);
    else this.databaseUsers.get(databaseId)!.set(userId, record);
    this.changed();
    return record;
  }

  /** E24: removes all of the user's permissions on the database (NotFound when it has none). */
  removeDatabaseUser(databaseId: number, userId: number): void {
    this.databaseUser(databaseId, userId);
    this.databaseUsers.get(databaseId)!.delete(userId);
    this.changed();
  }

  // ----- directories -----

  /** The custodian directory, or NotFound. */
  directory(id: number): DirectoryRecord {
    const d = this.directories.get(id);
    if (!d) throw new NotFound("directory", id);
    return d;
  }

  /** Creates an empty custodian directory owned by an organization. */
  createDirectory(input: { organizationId: number; name: string }): DirectoryRecord {
    this.organization(input.organizationId);
    const d: DirectoryRecord = { id: this.allocateId("directory"), organizationId: input.organizationId, name: input.name, custodians: [] };
    this.directories.set(d.id, d);
    this.changed();
    return d;
  }

  // ----- activity events -----

  /**
   * Appends an organization-level event through eventLog.ts's EventLog: unix-millisecond
   * timestamps by the emulator's clock, ids from the store's counter (append order is id order).
   */
  appendEvent(
    organizationId: number,
    type: string,
    userId: number | null,
    description: string,
    data: Record<string, unknown> = {},
  ): EventRecord {
    return this.eventLog().append({ type, userId, organizationId, description, data }, this.clock.now());
  }

  /** The activity log over the store's events (nothing copied). */
  eventLog(): EventLog {
    return new EventLog(this.events, () => this.allocateId("event"));
  }

  /** Events of one organization, in id order. */
  eventsOf(organizationId: number): EventRecord[] {
    return this.events.filter((e) => e.organizationId === organizationId);
  }

  // ----- API keys -----

  /** Mints a key that acts as the user, with the user's roles. */
  mintUserKey(userId: number, label = `user ${userId}`): KeyRecord {
    const user = this.user(userId);
    if (user.apiKeyOf !== undefined) throw new NotFound("user", userId);
    const key = mintKeyText(this.random, (k) => this.keys.has(k));
    const record: KeyRecord = { key, keyId: keyIdOf(key), kind: "user", userId, label };
    this.keys.set(key, record);
    this.changed();
    return record;
  }

  /**
   * Mints an organization-level key: org admin of the organization, and parent org admin of its
   * sub-organizations. Each key gets its own synthetic user (E2 answers with it; it is the
   * actor of the events the key causes and never a member).
   */
  mintOrganizationKey(organizationId: number, label = `organization ${organizationId}`): KeyRecord {
    const org = this.organization(organizationId);
    const key = mintKeyText(this.random, (k) => this.keys.has(k));
    const keyId = keyIdOf(key);
    const keyUser: UserRecord = {
      id: this.allocateId("user"),
      firstName: "API key",
      lastName: keyId,
      title: `Organization key of ${org.name}`,
      username: `apikey-${keyId.toLowerCase()}`,
      email: `apikey-${keyId.toLowerCase()}@keys.invalid`,
      primaryOrganization: organizationId,
      lastActivity: null,
      lastLoggedOut: null,
      mfaRequired: false,
      active: true,
      apiKeyOf: organizationId,
    };
    this.addUserRecord(keyUser);
    const record: KeyRecord = { key, keyId, kind: "organization", userId: keyUser.id, organizationId, label };
    this.keys.set(key, record);
    this.changed();
    return record;
  }

  /** Revokes a key, named by its full text or its middle segment. */
  revokeKey(keyOrId: string): void {
    const record = this.keys.get(keyOrId) ?? [...this.keys.values()].find((k) => k.keyId === keyOrId);
    if (!record) throw new NotFound("API key", keyOrId);
    this.keys.delete(record.key);
    this.changed();
  }

  /**
   * The caller behind a key, or undefined for an unknown key. Each key is its own rate-limit
   * account for organization keys; user keys share their user's account.
   */
  resolveKey(key: string): Caller | undefined {
    const record = this.keys.get(key);
    if (!record) return undefined;
    if (record.kind === "organization") {
      return {
        kind: "organization",
        key: record,
        userId: record.userId,
        organizationId: record.organizationId!,
        account: `key:${record.keyId}`,
      };
    }
    if (!this.users.has(record.userId)) return undefined;
    return { kind: "user", key: record, userId: record.userId, account: `user:${record.userId}` };
  }

  // ----- synthetic data (the rules are in seed.ts; these stay for callers of the public Store) -----

  /** Adds `count` new members to an organization without events; see seed.ts addSyntheticMembers. */
  addSyntheticMembers(organizationId: number, count: number, permissions: OrganizationPermission[] = []): MembershipRecord[] {
    return addSyntheticMembers(this, organizationId, count, permissions);
  }

  /** Adds databases with a project and DB_UPLOAD holders each; see seed.ts addSyntheticDatabases. */
  addSyntheticDatabases(organizationId: number, databases: number, usersPerDatabase = 0): DatabaseRecord[] {
    return addSyntheticDatabases(this, organizationId, databases, usersPerDatabase);
  }

  // ----- whole-world operations -----

  /** Empties the world (ids restart) but keeps the clock and listeners. */
  clear(seed = 1): void {
    this.nextId = initialIds();
    for (const m of [
      this.organizations,
      this.users,
      this.memberships,
      this.databases,
      this.databaseUsers,
      this.projects,
      this.invitations,
      this.directories,
      this.keys,
    ]) {
      m.clear();
    }
    this.userByEmail.clear();
    this.orgsOfUser.clear();
    this.events = [];
    this.billing = {};
    this.namedKeys = {};
    this.extensions = {};
    this.random = prng(seed);
    this.changed();
  }

  /** The whole world as plain JSON. */
  toJSON(): WorldSnapshot {
    return {
      version: 1,
      clockOffsetMs: this.clock.offsetMs,
      nextId: { ...this.nextId },
      organizations: [...this.organizations.values()],
      users: [...this.users.values()],
      memberships: [...this.memberships.values()].flatMap((byUser) => [...byUser.values()]),
      databases: [...this.databases.values()],
      databaseUsers: [...this.databaseUsers.values()].flatMap((byUser) => [...byUser.values()]),
      projects: [...this.projects.values()],
      invitations: [...this.invitations.values()],
      directories: [...this.directories.values()],
      keys: [...this.keys.values()],
      events: this.events,
      billing: this.billing,
      namedKeys: { ...this.namedKeys },
      extensions: this.extensions,
    };
  }

  /** Replaces the world with a snapshot (from toJSON, possibly through a file). */
  load(snapshot: WorldSnapshot): void {
    if (snapshot.version !== 1) throw new Error(`unsupported world snapshot version ${String(snapshot.version)}`);
    this.clear();
    const copy: WorldSnapshot = structuredClone(snapshot);
    this.clock.offsetMs = copy.clockOffsetMs;
    this.nextId = copy.nextId;
    for (const o of copy.organizations) {
      this.organizations.set(o.id, o);
      this.memberships.set(o.id, new Map());
    }
    for (const u of copy.users) this.addUserRecord(u);
    for (const m of copy.memberships) this.putMembership(m);
    for (const d of copy.databases) {
      this.databases.set(d.id, d);
      this.databaseUsers.set(d.id, new Map());
    }
    for (const du of copy.databaseUsers) this.databaseUsers.get(du.databaseId)!.set(du.userId, du);
    for (const p of copy.projects) this.projects.set(p.id, p);
    for (const i of copy.invitations) this.invitations.set(i.id, i);
    for (const d of copy.directories) this.directories.set(d.id, d);
    for (const k of copy.keys) this.keys.set(k.key, k);
    this.events = copy.events;
    this.billing = copy.billing ?? {};
    this.namedKeys = copy.namedKeys;
    this.extensions = copy.extensions ?? {};
    // The seed's key sequence has been used already (a revoked key must never come back): keys
    // minted after a load come from a fresh sequence.
    this.random = prng(Date.now() ^ (process.pid << 10));
    this.changed();
  }
}

/** Removes repeated items, keeping the first; sorted so stored sets compare equal. */
function unique<T extends string>(items: readonly T[]): T[] {
  return [...new Set(items)].sort();
}
