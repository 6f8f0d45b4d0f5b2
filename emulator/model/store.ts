/**
 * The emulator's world behind one facade: `Store` is the World of records (world.ts) with the
 * methods of every aggregate over it, each forwarded to the module that holds its rules:
 *
 *   organizations.ts  organizations and their tree      users.ts        platform users
 *   members.ts        memberships, E19's add-or-invite  invitations.ts  invitations
 *   databases.ts      databases, projects, DB users     directories.ts  custodian directories
 *   apiKeys.ts        minting, revoking, resolving keys uploadStore.ts  native uploads (`uploads`)
 *
 * The store knows nothing of HTTP. Its methods hold the service's rules (what E19 does with an
 * unknown email, what E20 removes) so the API handlers and the control API share them; lookups
 * throw the named errors of errors.ts (NotFound, ...), which ../errors.ts maps to statuses in one
 * place. Every change a person could make in the web UI is a plain method here, so the control
 * API can make it "behind the program's back" without auth.
 */
import type { OrganizationPermission } from "../../contract/types";
import { ApiKeys } from "./apiKeys";
import { Databases } from "./databases";
import { Directories } from "./directories";
import { Invitations } from "./invitations";
import { Members } from "./members";
import { Organizations } from "./organizations";
import type { DatabaseRecord, MembershipRecord } from "./records";
import { addSyntheticDatabases, addSyntheticMembers } from "./seed";
import { UploadStore, type UploadOptions } from "./uploadStore";
import { Users } from "./users";
import { World } from "./world";

export { INVITATION_LIFETIME_MS } from "./invitations";
export { isValidEmail, type AddUsersOutcome, type MemberUpdate } from "./members";
export type { NewUser } from "./users";
export { emailKey, type ChangeListener, type StoreOptions } from "./world";

/** The emulator's whole state and the rules that change it: the World, with each aggregate's methods. */
export class Store extends World {
  readonly #organizations = new Organizations(this);
  readonly #users = new Users(this);
  readonly #invitations = new Invitations(this, this.#organizations);
  readonly #databases = new Databases(this, this.#organizations, this.#users);
  readonly #members = new Members(this, this.#organizations, this.#users, this.#invitations, this.#databases);
  readonly #directories = new Directories(this, this.#organizations);
  readonly #apiKeys = new ApiKeys(this, this.#organizations, this.#users);
  /** The live upload store bound to `uploadState` (temp folder, part tokens, timers), made on first use. */
  #uploads: UploadStore | undefined;
  /** Options of the next upload store bound (configureUploads). */
  #uploadOptions: UploadOptions = {};

  // ----- organizations.ts -----

  /** The organization, or NotFound. */
  organization(...a: Parameters<Organizations["organization"]>) {
    return this.#organizations.organization(...a);
  }

  /** Creates an organization (seed and control API; the API cannot). */
  createOrganization(...a: Parameters<Organizations["createOrganization"]>) {
    return this.#organizations.createOrganization(...a);
  }

  /** Direct sub-organizations of an organization. */
  subOrganizations(...a: Parameters<Organizations["subOrganizations"]>) {
    return this.#organizations.subOrganizations(...a);
  }

  // ----- users.ts -----

  /** The user, or NotFound. Key users (behind organization keys) count as users here. */
  user(...a: Parameters<Users["user"]>) {
    return this.#users.user(...a);
  }

  /** The platform user with this email (case-insensitive), if any. */
  findUserByEmail(...a: Parameters<Users["findUserByEmail"]>) {
    return this.#users.findUserByEmail(...a);
  }

  /** Creates a platform user (no memberships yet). */
  createUser(...a: Parameters<Users["createUser"]>) {
    return this.#users.createUser(...a);
  }

  // ----- members.ts -----

  /** The membership, or undefined. */
  findMembership(...a: Parameters<Members["findMembership"]>) {
    return this.#members.findMembership(...a);
  }

  /** The membership, or NotFound naming the user within the organization. */
  membership(...a: Parameters<Members["membership"]>) {
    return this.#members.membership(...a);
  }

  /** Members of an organization, in id order. */
  membersOf(...a: Parameters<Members["membersOf"]>) {
    return this.#members.membersOf(...a);
  }

  /** Organization ids a user is a member of, in id order. */
  organizationsOf(...a: Parameters<Members["organizationsOf"]>) {
    return this.#members.organizationsOf(...a);
  }

  /** Adds a user to an organization with the given permissions. */
  addMember(...a: Parameters<Members["addMember"]>) {
    return this.#members.addMember(...a);
  }

  /** Adds a membership without writing an event. */
  seedMembership(...a: Parameters<Members["seedMembership"]>) {
    return this.#members.seedMembership(...a);
  }

  /** E22: sets the fields given; a field left out is left as it is. Writes USER_UPDATED. */
  updateMember(...a: Parameters<Members["updateMember"]>) {
    return this.#members.updateMember(...a);
  }

  /** E20: removes the member from the organization and from its databases' projects. Writes USER_REMOVED. */
  removeMember(...a: Parameters<Members["removeMember"]>) {
    return this.#members.removeMember(...a);
  }

  /** E19: existing users become members, unknown emails get invitations, unparseable ones land in `invalid`. */
  addUsers(...a: Parameters<Members["addUsers"]>) {
    return this.#members.addUsers(...a);
  }

  /** Control API. */
  acceptInvitation(...a: Parameters<Members["acceptInvitation"]>) {
    return this.#members.acceptInvitation(...a);
  }

  // ----- invitations.ts -----

  /** True when the invitation's expiration is before the emulator's now. */
  isExpired(...a: Parameters<Invitations["isExpired"]>) {
    return this.#invitations.isExpired(...a);
  }

  /** Invitations of an organization (pending and expired), in id order. */
  invitationsOf(...a: Parameters<Invitations["invitationsOf"]>) {
    return this.#invitations.invitationsOf(...a);
  }

  /** The organization's invitation for this email (case-insensitive), if any. */
  findInvitation(...a: Parameters<Invitations["findInvitation"]>) {
    return this.#invitations.findInvitation(...a);
  }

  /** The invitation, or NotFound naming the email. */
  invitation(...a: Parameters<Invitations["invitation"]>) {
    return this.#invitations.invitation(...a);
  }

  /** Sends a new invitation, valid for 14 days. Writes INVITATION_SENT unless `options.event` is false (seeding). */
  createInvitation(...a: Parameters<Invitations["createInvitation"]>) {
    return this.#invitations.createInvitation(...a);
  }

  /** E15: sends the invitation again and resets its expiration to 14 days from now. Writes INVITATION_RESENT. */
  resendInvitation(...a: Parameters<Invitations["resendInvitation"]>) {
    return this.#invitations.resendInvitation(...a);
  }

  /** E13: deletes the invitation (pending or expired). Writes INVITATION_DELETED. */
  deleteInvitation(...a: Parameters<Invitations["deleteInvitation"]>) {
    return this.#invitations.deleteInvitation(...a);
  }

  /** Control API: makes the invitation expire now (as if 14 days had passed). */
  expireInvitation(...a: Parameters<Invitations["expireInvitation"]>) {
    return this.#invitations.expireInvitation(...a);
  }

  // ----- databases.ts -----

  /** The database, or NotFound. */
  database(...a: Parameters<Databases["database"]>) {
    return this.#databases.database(...a);
  }

  /** Databases owned by an organization, in id order. */
  databasesOf(...a: Parameters<Databases["databasesOf"]>) {
    return this.#databases.databasesOf(...a);
  }

  /** Creates a database owned by an organization (seed and control API). */
  createDatabase(...a: Parameters<Databases["createDatabase"]>) {
    return this.#databases.createDatabase(...a);
  }

  /** Control API: turns org admin access of a database on or off. */
  setOrgAdminAccess(...a: Parameters<Databases["setOrgAdminAccess"]>) {
    return this.#databases.setOrgAdminAccess(...a);
  }

  /** The project, or NotFound. */
  project(...a: Parameters<Databases["project"]>) {
    return this.#databases.project(...a);
  }

  /** Projects of a database, in id order. */
  projectsOf(...a: Parameters<Databases["projectsOf"]>) {
    return this.#databases.projectsOf(...a);
  }

  /** Creates a project in a database (seed and control API). */
  createProject(...a: Parameters<Databases["createProject"]>) {
    return this.#databases.createProject(...a);
  }

  /** Users with permissions on a database, in user id order. */
  databaseUsersOf(...a: Parameters<Databases["databaseUsersOf"]>) {
    return this.#databases.databaseUsersOf(...a);
  }

  /** The user's permissions on the database, or undefined. */
  findDatabaseUser(...a: Parameters<Databases["findDatabaseUser"]>) {
    return this.#databases.findDatabaseUser(...a);
  }

  /** The user's permissions on the database, or NotFound. */
  databaseUser(...a: Parameters<Databases["databaseUser"]>) {
    return this.#databases.databaseUser(...a);
  }

  /** E26: overwrites the user's database permissions; an empty set removes the user from the list. */
  setDatabaseUser(...a: Parameters<Databases["setDatabaseUser"]>) {
    return this.#databases.setDatabaseUser(...a);
  }

  /** E24: removes all of the user's permissions on the database (NotFound when it has none). */
  removeDatabaseUser(...a: Parameters<Databases["removeDatabaseUser"]>) {
    return this.#databases.removeDatabaseUser(...a);
  }

  // ----- directories.ts -----

  /** The custodian directory, or NotFound. */
  directory(...a: Parameters<Directories["directory"]>) {
    return this.#directories.directory(...a);
  }

  /** Creates an empty custodian directory owned by an organization. */
  createDirectory(...a: Parameters<Directories["createDirectory"]>) {
    return this.#directories.createDirectory(...a);
  }

  // ----- apiKeys.ts -----

  /** Mints a key that acts as the user, with the user's roles. */
  mintUserKey(...a: Parameters<ApiKeys["mintUserKey"]>) {
    return this.#apiKeys.mintUserKey(...a);
  }

  /** Mints an organization-level key. */
  mintOrganizationKey(...a: Parameters<ApiKeys["mintOrganizationKey"]>) {
    return this.#apiKeys.mintOrganizationKey(...a);
  }

  /** Revokes a key, named by its full text or its middle segment. */
  revokeKey(...a: Parameters<ApiKeys["revokeKey"]>) {
    return this.#apiKeys.revokeKey(...a);
  }

  /** The caller behind a key, or undefined for an unknown key. */
  resolveKey(...a: Parameters<ApiKeys["resolveKey"]>) {
    return this.#apiKeys.resolveKey(...a);
  }

  // ----- uploadStore.ts -----

  /**
   * Native uploads over `uploadState`: bound on first use, and bound again once reset or load
   * replaced the state (the old one's timers stop; its bytes stay until close or exit).
   */
  get uploads(): UploadStore {
    const current = this.#uploads;
    if (current && this.uploadState === current.state) return current;
    current?.stop();
    const uploads = new UploadStore(
      { now: () => this.clock.now(), onChange: () => this.changed(), ...this.#uploadOptions },
      this.uploadState,
    );
    this.uploadState = uploads.state;
    this.#uploads = uploads;
    return uploads;
  }

  /** Sets the upload options (tests: small parts, short delays) and binds a new upload store; the state is kept. */
  configureUploads(options: UploadOptions): UploadStore {
    this.#uploadOptions = options;
    this.#uploads?.stop();
    this.#uploads = undefined;
    return this.uploads;
  }

  /** Closes the upload store, if one was ever bound: timers, downloads, its temp folder. */
  async closeUploads(): Promise<void> {
    if (this.uploadState !== undefined) await this.uploads.close();
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
}
