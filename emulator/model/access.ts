/**
 * The spec's Access columns as named functions: first the roles (isMember, isOrgAdmin, ...),
 * then one rule per column, named after what it guards. Handlers pass a rule to the guards of
 * ../handlers/guards.ts, whose 403 quotes the route's access text from the contract.
 *
 * Roles and keys:
 * - A user key acts with its user's roles: member of the organizations it belongs to, org admin
 *   where its membership carries ORG_ADMIN, legal hold admin where it carries LEGAL_HOLD_ADMIN,
 *   database admin where it holds DB_ADMIN.
 * - An organization key is org admin of its organization (spec, Authentication 5), and so parent
 *   org admin of that organization's sub-organizations. It is never a database admin.
 * - A parent org admin is an org admin (by key or by ORG_ADMIN) of the organization's parent.
 *   It gets only what a column names it for (E6, E7 to E12, E16, E27 to E30): E1, E4 and the
 *   member, invitation and database-user endpoints do not name it, so it is refused there.
 *
 * orgAdminAccess false (spec, concept 7): "org admins can still fetch summary information (for
 * example name and total billable size) but cannot access documents or similar data. The
 * 'Database/Project Org Admin' endpoints stay usable by org admins and parent org admins even
 * then." Decision:
 * - Kept (summary, or a Database/Project Org Admin endpoint): E9 organization databases and E16
 *   organization projects (lists of names), E27 get database, E28 billing, E30 size, and E29
 *   database projects. E27 to E30 share one Access column that names parent org admins, the
 *   mark of the Database/Project Org Admin endpoints, and a project list is names and flags,
 *   not documents.
 * - Lost: E23 to E26 database users (their column says "if the database allows org admin
 *   access"), E4 projects the caller can access (access to a project is access to its
 *   documents), and uploads (putting documents in is document access).
 * E1 (databases the caller administers) lists a database for an org admin of its owner either
 * way: its column names no exception and a Database entity is summary information.
 */
import type { Caller, DatabaseRecord, ProjectRecord } from "./records";
import type { Store } from "./store";

// ----- roles -----

/** The caller is a member of the organization (an organization key counts as its own organization's member). */
export function isMember(store: Store, caller: Caller, organizationId: number): boolean {
  if (caller.kind === "organization") return caller.organizationId === organizationId;
  return store.members.find(organizationId, caller.userId) !== undefined;
}

/** The caller is org admin of the organization: its organization key, or a member with ORG_ADMIN. */
export function isOrgAdmin(store: Store, caller: Caller, organizationId: number): boolean {
  if (caller.kind === "organization") return caller.organizationId === organizationId;
  return store.members.find(organizationId, caller.userId)?.permissions.includes("ORG_ADMIN") ?? false;
}

/** The caller is org admin of the organization's parent (so parent org admin of it). */
export function isParentOrgAdmin(store: Store, caller: Caller, organizationId: number): boolean {
  const parentId = store.organizations.find(organizationId)?.parentOrganizationId;
  return parentId != null && isOrgAdmin(store, caller, parentId);
}

/** The caller's key is a parent organization key: the organization key of an organization with sub-organizations. */
export function isParentOrganizationKey(store: Store, caller: Caller): boolean {
  return caller.kind === "organization" && store.organizations.subOrganizations(caller.organizationId).length > 0;
}

/** The caller holds DB_ADMIN on the database (user keys only). */
export function isDatabaseAdmin(store: Store, caller: Caller, databaseId: number): boolean {
  if (caller.kind === "organization") return false;
  return store.databases.findUser(databaseId, caller.userId)?.permissions.includes("DB_ADMIN") ?? false;
}

/** The caller is a member of the organization with LEGAL_HOLD_ADMIN. */
export function isLegalHoldAdmin(store: Store, caller: Caller, organizationId: number): boolean {
  if (caller.kind === "organization") return false;
  return store.members.find(organizationId, caller.userId)?.permissions.includes("LEGAL_HOLD_ADMIN") ?? false;
}

/** The caller's org admin role reaches into the database (its owner's org admin, and the database allows it). */
export function hasOrgAdminAccessTo(store: Store, caller: Caller, db: DatabaseRecord): boolean {
  return db.orgAdminAccess && isOrgAdmin(store, caller, db.owningOrganizationId);
}

// ----- Access columns -----

/** E1: a database appears in the caller's list: DB_ADMIN on it, or org admin of its owner. */
export function canListDatabase(store: Store, caller: Caller, db: DatabaseRecord): boolean {
  return isDatabaseAdmin(store, caller, db.id) || isOrgAdmin(store, caller, db.owningOrganizationId);
}

/**
 * E4: a project the caller can access: a project user (through its groups), DB_ADMIN on its
 * database, or org admin of the owner where the database allows org admin access.
 */
export function canAccessProject(store: Store, caller: Caller, project: ProjectRecord): boolean {
  const db = store.databases.get(project.databaseId);
  return project.userIds.includes(caller.userId) || isDatabaseAdmin(store, caller, db.id) || hasOrgAdminAccessTo(store, caller, db);
}

/** E6: member of the organization, or parent org admin. */
export function canReadOrganization(store: Store, caller: Caller, organizationId: number): boolean {
  return isMember(store, caller, organizationId) || isParentOrgAdmin(store, caller, organizationId);
}

/** E7 to E12, E16: org admin or parent org admin of the organization. */
export function canAdministerOrganization(store: Store, caller: Caller, organizationId: number): boolean {
  return isOrgAdmin(store, caller, organizationId) || isParentOrgAdmin(store, caller, organizationId);
}

/**
 * E13 to E15, E17 to E22: org admin of the organization only. E13 to E15 say "Not stated":
 * invitations are membership management, so they follow the member endpoints.
 */
export function canManageMembers(store: Store, caller: Caller, organizationId: number): boolean {
  return isOrgAdmin(store, caller, organizationId);
}

/** E27 to E30: DB_ADMIN on the database, or org admin or parent org admin of its owner, whatever orgAdminAccess says. */
export function canReadDatabase(store: Store, caller: Caller, db: DatabaseRecord): boolean {
  return isDatabaseAdmin(store, caller, db.id) || canAdministerOrganization(store, caller, db.owningOrganizationId);
}

/** E23 to E26: DB_ADMIN on the database, or org admin of its owner if the database allows org admin access. */
export function canManageDatabaseUsers(store: Store, caller: Caller, db: DatabaseRecord): boolean {
  return isDatabaseAdmin(store, caller, db.id) || hasOrgAdminAccessTo(store, caller, db);
}

/** E5: org admin or legal hold admin of the directory's owning organization. */
export function canSyncCustodians(store: Store, caller: Caller, organizationId: number): boolean {
  return isOrgAdmin(store, caller, organizationId) || isLegalHoldAdmin(store, caller, organizationId);
}

/**
 * Uploads (up1 to up5): the spec says uploading is a database permission. DB_UPLOAD or DB_ADMIN
 * on the database, or org admin of its owner where the database allows org admin access.
 */
export function canUpload(store: Store, caller: Caller, db: DatabaseRecord): boolean {
  if (caller.kind === "user") {
    const perms = store.databases.findUser(db.id, caller.userId)?.permissions ?? [];
    if (perms.includes("DB_UPLOAD") || perms.includes("DB_ADMIN")) return true;
  }
  return hasOrgAdminAccessTo(store, caller, db);
}
