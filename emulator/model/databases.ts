/**
 * Databases, their projects and their users' database permissions (E23 to E26): lookup,
 * creation (seed and control API), org admin access, setting or removing permissions, and the
 * activity event of a permission change made in the web application.
 */
import type { DatabasePermission } from "../../contract/types";
import { NotFound } from "./errors";
import type { Organizations } from "./organizations";
import type { DatabaseRecord, DatabaseUserRecord, DocCountsRecord, ProjectRecord } from "./records";
import type { Users } from "./users";
import { unique, type World } from "./world";

/** Databases of organizations, with their projects and their users' permissions. */
export class Databases {
  constructor(
    private readonly world: World,
    private readonly organizations: Organizations,
    private readonly users: Users,
  ) {}

  /** The database, or NotFound. */
  get(id: number): DatabaseRecord {
    const db = this.world.databases.get(id);
    if (!db) throw new NotFound("database", id);
    return db;
  }

  /** Databases owned by an organization, in id order. */
  of(organizationId: number): DatabaseRecord[] {
    return this.all().filter((d) => d.owningOrganizationId === organizationId);
  }

  /** Every database, in id order. */
  all(): DatabaseRecord[] {
    return [...this.world.databases.values()];
  }

  /** Creates a database owned by an organization (seed and control API). */
  create(input: { owningOrganizationId: number; name: string; orgAdminAccess?: boolean; created?: string }): DatabaseRecord {
    this.organizations.get(input.owningOrganizationId);
    const id = this.world.allocateId("database");
    const docs = 1000 + Math.floor(this.world.random() * 50_000);
    const counts = (share: number): DocCountsRecord => {
      const docCount = Math.round(docs * share);
      return { docCount, imageSize: docCount * 41_000, nativeSize: docCount * 230_000, textSize: docCount * 6_500 };
    };
    const db: DatabaseRecord = {
      id,
      name: input.name,
      owningOrganizationId: input.owningOrganizationId,
      orgAdminAccess: input.orgAdminAccess ?? true,
      created: input.created ?? this.world.clock.iso(),
      databaseFields: [{ name: "Matter number", type: "TEXT", value: `M-${id}` }],
      size: { nativeDocs: counts(1), processedDocs: counts(0.8), producedDocs: counts(0.1) },
    };
    this.world.databases.set(id, db);
    this.world.databaseUsers.set(id, new Map());
    this.world.changed();
    return db;
  }

  /** Control API: turns org admin access of a database on or off. */
  setOrgAdminAccess(databaseId: number, orgAdminAccess: boolean): DatabaseRecord {
    const db = this.get(databaseId);
    db.orgAdminAccess = orgAdminAccess;
    this.world.changed();
    return db;
  }

  /** The project, or NotFound. */
  project(id: number): ProjectRecord {
    const p = this.world.projects.get(id);
    if (!p) throw new NotFound("project", id);
    return p;
  }

  /** Projects of a database, in id order. */
  projectsOf(databaseId: number): ProjectRecord[] {
    return this.allProjects().filter((p) => p.databaseId === databaseId);
  }

  /** Every project, in id order. */
  allProjects(): ProjectRecord[] {
    return [...this.world.projects.values()];
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
    this.get(input.databaseId);
    const p: ProjectRecord = {
      id: this.world.allocateId("project"),
      databaseId: input.databaseId,
      name: input.name,
      displayName: input.displayName ?? input.name,
      created: input.created ?? this.world.clock.iso(),
      eca: input.eca ?? false,
      partial: input.partial ?? false,
      mfaRequired: false,
      productionMode: false,
      suspended: input.suspended ?? false,
      emailThreadingStatus: "IN_PROGRESS",
      lastLogin: null,
      userIds: [...(input.userIds ?? [])],
    };
    this.world.projects.set(p.id, p);
    this.world.changed();
    return p;
  }

  /** Users with permissions on a database, in user id order. */
  usersOf(databaseId: number): DatabaseUserRecord[] {
    this.get(databaseId);
    return [...this.world.databaseUsers.get(databaseId)!.values()].sort((a, b) => a.userId - b.userId);
  }

  /** The user's permissions on the database, or undefined. */
  findUser(databaseId: number, userId: number): DatabaseUserRecord | undefined {
    return this.world.databaseUsers.get(databaseId)?.get(userId);
  }

  /** The user's permissions on the database, or NotFound. */
  user(databaseId: number, userId: number): DatabaseUserRecord {
    this.get(databaseId);
    const du = this.findUser(databaseId, userId);
    if (!du) throw new NotFound(`user of database ${databaseId}:`, userId);
    return du;
  }

  /**
   * E26: overwrites the user's database permissions. The user must exist on the platform. An
   * empty set removes the user from the database's list (a holder with no permission is no
   * holder); the answer still shows the user with no permissions.
   */
  setUser(databaseId: number, userId: number, permissions: DatabasePermission[]): DatabaseUserRecord {
    this.get(databaseId);
    const user = this.users.get(userId);
    if (user.apiKeyOf !== undefined) throw new NotFound("user", userId);
    const record: DatabaseUserRecord = { databaseId, userId, permissions: unique(permissions) };
    if (record.permissions.length === 0) this.world.databaseUsers.get(databaseId)!.delete(userId);
    else this.world.databaseUsers.get(databaseId)!.set(userId, record);
    this.world.changed();
    return record;
  }

  /** E24: removes all of the user's permissions on the database (NotFound when it has none). */
  removeUser(databaseId: number, userId: number): void {
    this.user(databaseId, userId);
    this.world.databaseUsers.get(databaseId)!.delete(userId);
    this.world.changed();
  }

  /**
   * The event of a database permission change a person made in the web application, in the
   * owning organization's log (an empty set: removed). The API's own E24 and E26 write none (the
   * spec lists organization-level events only); the web app's changes are logged so that a
   * review can attribute them. Types: DATABASE_USER_UPDATED, DATABASE_USER_REMOVED.
   */
  logWebAppChange(databaseId: number, userId: number, permissions: readonly string[], actorId: number | null): void {
    const db = this.get(databaseId);
    const email = this.users.get(userId).email;
    const removed = permissions.length === 0;
    this.world.appendEvent(
      db.owningOrganizationId,
      removed ? "DATABASE_USER_REMOVED" : "DATABASE_USER_UPDATED",
      actorId,
      removed ? `${email} was removed from database ${db.name}` : `${email}'s permissions on database ${db.name} were set`,
      { userId, email, databaseId, databaseName: db.name, permissions: [...permissions] },
    );
    this.world.changed();
  }
}
