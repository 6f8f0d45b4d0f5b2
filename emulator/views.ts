/**
 * Stored records turned into the API's JSON shapes (spec, "Resources and their fields"). Each
 * shape is built in one function so E18, E19, E21 and E22 cannot drift apart.
 */
import type { Database, DatabaseUser, Invitation, Member, Organization, Project, User } from "../contract";
import type {
  DatabaseRecord,
  DatabaseUserRecord,
  InvitationRecord,
  MembershipRecord,
  OrganizationRecord,
  ProjectRecord,
  UserRecord,
} from "./model/records";
import type { Store } from "./model/store";

/** Organization; `parentOrganizationId` only on sub-organizations ("set for sub-organizations"). */
export function organizationView(org: OrganizationRecord): Organization {
  return {
    id: org.id,
    name: org.name,
    ...(org.parentOrganizationId !== null ? { parentOrganizationId: org.parentOrganizationId } : {}),
    saml: { ...org.saml },
  };
}

/** User.organizations: every organization of the user, with whether it is org admin there. */
export function userOrganizations(store: Store, user: UserRecord): { id: number; name: string; orgAdmin: boolean }[] {
  if (user.apiKeyOf !== undefined) {
    // An organization key's identity: org admin of its organization, member of nothing.
    return [{ id: user.apiKeyOf, name: store.organizations.get(user.apiKeyOf).name, orgAdmin: true }];
  }
  return store.members.organizationsOf(user.id).map((orgId) => ({
    id: orgId,
    name: store.organizations.get(orgId).name,
    orgAdmin: store.members.find(orgId, user.id)!.permissions.includes("ORG_ADMIN"),
  }));
}

/** The fields every User view shares. */
function userBase(store: Store, user: UserRecord) {
  return {
    id: user.id,
    firstName: user.firstName,
    lastName: user.lastName,
    title: user.title,
    username: user.username,
    organizations: userOrganizations(store, user),
    primaryOrganization: user.primaryOrganization,
  };
}

/** E2: the user behind the key, with lastLoggedOut and mfaRequired. */
export function currentUserView(store: Store, user: UserRecord): User {
  const primary = user.primaryOrganization === null ? undefined : store.members.find(user.primaryOrganization, user.id);
  return {
    ...userBase(store, user),
    email: user.email,
    // Identifiers belong to a membership; the current user shows those of its primary organization.
    userIdentifiers: primary?.userIdentifiers ?? [],
    lastActivity: user.lastActivity,
    lastLoggedOut: user.lastLoggedOut,
    mfaRequired: user.mfaRequired,
  };
}

/** E18, E19, E21, E22: a member with email, identifiers, last activity and permissions in that organization. */
export function memberView(store: Store, m: MembershipRecord): Member {
  const user = store.users.get(m.userId);
  return {
    ...userBase(store, user),
    email: user.email,
    userIdentifiers: m.userIdentifiers.map((i) => ({ ...i })),
    lastActivity: user.lastActivity,
    permissions: [...m.permissions],
  };
}

/** Database; context is the service's own name in upper case. */
export function databaseView(db: DatabaseRecord): Database {
  return {
    context: "PLATFORM",
    databaseFields: db.databaseFields.map((f) => ({ ...f })),
    id: db.id,
    name: db.name,
    orgAdminAccess: db.orgAdminAccess,
    owningOrganizationId: db.owningOrganizationId,
  };
}

/** Project; `inDatabaseList` adds emailThreadingStatus and lastLogin (only E29 shows them). */
export function projectView(store: Store, p: ProjectRecord, inDatabaseList = false): Project {
  return {
    created: p.created,
    database: databaseView(store.databases.get(p.databaseId)),
    displayName: p.displayName,
    eca: p.eca,
    id: p.id,
    mfaRequired: p.mfaRequired,
    name: p.name,
    partial: p.partial,
    productionMode: p.productionMode,
    suspended: p.suspended,
    ...(inDatabaseList ? { emailThreadingStatus: p.emailThreadingStatus, lastLogin: p.lastLogin } : {}),
  };
}

/** E23 to E26: the user (a subset of User), its database permissions, and whether it is active. */
export function databaseUserView(store: Store, du: DatabaseUserRecord): DatabaseUser {
  const user = store.users.get(du.userId);
  return { active: user.active, permissions: [...du.permissions], user: userBase(store, user) };
}

/** E14, E15, E19: an invitation; `expired` is computed against the emulator's clock. */
export function invitationView(store: Store, inv: InvitationRecord): Invitation {
  return {
    approvedBy: inv.approvedBy,
    email: inv.email,
    expiration: inv.expiration,
    expired: store.invitations.isExpired(inv),
    firstName: inv.firstName,
    lastName: inv.lastName,
    invitedBy: inv.invitedBy,
    organizationId: inv.organizationId,
    organizationPermissions: [...inv.permissions],
  };
}
