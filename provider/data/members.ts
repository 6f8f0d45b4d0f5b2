/**
 * Data sources for people: organization members (E18, E21), invitations (E14), user
 * identifiers (E17) and database users (E23, E25).
 */
import { z } from "zod";
import { DatabasePermission, OrganizationPermission } from "../../contract";
import type { DatabaseUser, Invitation, Member, UserIdentifier } from "../../contract/types";
import { normalizeEmail } from "../normalize";
import { idArg } from "./args";
import { outputForm, type DataSourceFn } from "./dataSource";
import { defineDataSource } from "./defineDataSource";
import { matchesFlag, matchesName, nameFilterArgs } from "./filters";
import type {
  GetDatabaseUserArgs,
  GetDatabaseUsersArgs,
  GetOrganizationInvitationsArgs,
  GetOrganizationMemberArgs,
  GetOrganizationMembersArgs,
  GetOrganizationUserIdentifiersArgs,
  ListedInvitationStatus,
  MemberFilter,
} from "./argTypes.generated";

export type {
  GetDatabaseUserArgs,
  GetDatabaseUsersArgs,
  GetOrganizationInvitationsArgs,
  GetOrganizationMemberArgs,
  GetOrganizationMembersArgs,
  GetOrganizationUserIdentifiersArgs,
  ListedInvitationStatus,
  MemberFilter,
};

function fullName(first: string | null | undefined, last: string | null | undefined): string {
  return [first, last].filter((s) => typeof s === "string" && s !== "").join(" ");
}

function sameEmail(a: string | null | undefined, b: string): boolean {
  return typeof a === "string" && normalizeEmail(a) === normalizeEmail(b);
}

// ------------------------------------------------------------------------------------------------
// Members
// ------------------------------------------------------------------------------------------------

/**
 * Member filters, applied after every page is read. `name` matches the full name ("First Last")
 * exactly; `nameContains` matches the full name, username or email, case-insensitively.
 * @outputType MemberFilter
 */
const memberFilterArgs = z.object({
  ...nameFilterArgs.shape,
  /** Keep only members holding this organization permission. */
  permission: OrganizationPermission.optional(),
  /** true: only members with no organization permission at all; false: only members with at least one. */
  noPermissions: z.boolean().optional(),
  /** Keep only the member with this email (case-insensitive). */
  email: z.string().optional(),
  /** Keep only members carrying a user identifier with this abbreviation. */
  userIdentifier: z.string().optional(),
});

/**
 * getOrganizationMembers arguments: the organization, and filters applied after every page is read.
 * @inputType GetOrganizationMembersArgs
 */
const getOrganizationMembersArgs = memberFilterArgs.strict().extend({
  /** The organization whose members to list. */
  organizationId: idArg,
});

export interface GetOrganizationMembersResult {
  /** The organization asked about. */
  organizationId: number;
  /** The members (with email, permissions, identifiers, lastActivity), after the filters, in the service's order. */
  members: Member[];
  /** Their user ids, in the same order. */
  ids: number[];
  /** Their emails, in the same order. */
  emails: string[];
}

/** Applies a MemberFilter to a list of members. */
function filterMembers(all: Member[], f: MemberFilter): Member[] {
  return all.filter(
    (m) =>
      matchesName({ name: f.name }, fullName(m.firstName, m.lastName)) &&
      matchesName({ nameContains: f.nameContains }, fullName(m.firstName, m.lastName), m.username, m.email) &&
      (f.permission === undefined || m.permissions.includes(f.permission)) &&
      matchesFlag(f.noPermissions, m.permissions.length === 0) &&
      (f.email === undefined || sameEmail(m.email, f.email)) &&
      (f.userIdentifier === undefined || m.userIdentifiers.some((i) => i.abbreviation === f.userIdentifier)),
  );
}

/** Lists every member of an organization with their permissions (`GET /v1/organizations/{orgId}/users`, all pages; org admin), then filters. */
export const getOrganizationMembers: DataSourceFn<GetOrganizationMembersArgs, GetOrganizationMembersResult> = defineDataSource({
  name: "getOrganizationMembers",
  args: getOrganizationMembersArgs,
  read: async ({ organizationId, ...filter }, { client, reading, callOptions }) => {
    const all = await reading(`the members of organization ${organizationId}`, () =>
      client.listAll("GetOrganizationUsers", { orgId: organizationId }, callOptions),
    );
    const members = filterMembers(all, filter);
    return { organizationId, members, ids: members.map((m) => m.id), emails: members.map((m) => m.email) };
  },
});

/** The Output form of getOrganizationMembers, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getOrganizationMembersOutput = outputForm(getOrganizationMembers);

/**
 * getOrganizationMember arguments.
 * @inputType GetOrganizationMemberArgs
 */
const getOrganizationMemberArgs = z.strictObject({
  /** The organization. */
  organizationId: idArg,
  /** The member's user id. */
  userId: idArg,
});

/** getOrganizationMember result: the member with permissions and identifiers (`GET /v1/organizations/{orgId}/users/{userId}`). */
export type GetOrganizationMemberResult = Member;

/** Reads one member of an organization (`GET /v1/organizations/{orgId}/users/{userId}`; org admin). A user who is not a member is a 404 error. */
export const getOrganizationMember: DataSourceFn<GetOrganizationMemberArgs, GetOrganizationMemberResult> = defineDataSource({
  name: "getOrganizationMember",
  args: getOrganizationMemberArgs,
  read: ({ organizationId, userId }, { client, reading, callOptions }) =>
    reading(`member ${userId} of organization ${organizationId}`, () =>
      client.call("GetOrganizationUser", { orgId: organizationId, userId }, undefined, callOptions),
    ),
});

/** The Output form of getOrganizationMember, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getOrganizationMemberOutput = outputForm(getOrganizationMember);

// ------------------------------------------------------------------------------------------------
// Invitations
// ------------------------------------------------------------------------------------------------

/**
 * Where an invitation stands: `pending` (can still be accepted) or `expired`.
 * @outputType ListedInvitationStatus
 */
const listedInvitationStatus = z.enum(["pending", "expired"]);

/** An invitation with its status spelled out. */
export type InvitationWithStatus = Invitation & { status: ListedInvitationStatus };

/**
 * getOrganizationInvitations arguments: the organization, and filters applied after reading.
 * @inputType GetOrganizationInvitationsArgs
 */
const getOrganizationInvitationsArgs = z.strictObject({
  /** The organization whose invitations to list. */
  organizationId: idArg,
  /** Keep only pending or only expired invitations; both when left out. */
  status: listedInvitationStatus.optional(),
  /** Keep only the invitation for this email (case-insensitive). */
  email: z.string().optional(),
  /** Keep only invitations granting this organization permission. */
  permission: OrganizationPermission.optional(),
});

export interface GetOrganizationInvitationsResult {
  /** The organization asked about. */
  organizationId: number;
  /** The invitations after the filters, each with `status`, in the service's order. */
  invitations: InvitationWithStatus[];
  /** Emails of the pending ones among them. */
  pendingEmails: string[];
  /** Emails of the expired ones among them. */
  expiredEmails: string[];
}

/** Lists an organization's pending and expired invitations (`GET /v1/organizations/{orgId}/invitations`; org admin assumed), marks each with `status`, then filters. */
export const getOrganizationInvitations: DataSourceFn<GetOrganizationInvitationsArgs, GetOrganizationInvitationsResult> = defineDataSource({
  name: "getOrganizationInvitations",
  args: getOrganizationInvitationsArgs,
  read: async ({ organizationId, ...args }, { client, reading, callOptions }) => {
    const data = await reading(`the invitations of organization ${organizationId}`, () =>
      client.call("GetOrganizationInvitations", { orgId: organizationId }, undefined, callOptions),
    );
    const invitations: InvitationWithStatus[] = data.invitations
      .map((i) => ({ ...i, status: (i.expired ? "expired" : "pending") as ListedInvitationStatus }))
      .filter(
        (i) =>
          (args.status === undefined || i.status === args.status) &&
          (args.email === undefined || sameEmail(i.email, args.email)) &&
          (args.permission === undefined || i.organizationPermissions.includes(args.permission)),
      );
    return {
      organizationId,
      invitations,
      pendingEmails: invitations.filter((i) => i.status === "pending").map((i) => i.email),
      expiredEmails: invitations.filter((i) => i.status === "expired").map((i) => i.email),
    };
  },
});

/** The Output form of getOrganizationInvitations, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getOrganizationInvitationsOutput = outputForm(getOrganizationInvitations);

// ------------------------------------------------------------------------------------------------
// User identifiers
// ------------------------------------------------------------------------------------------------

/**
 * getOrganizationUserIdentifiers arguments.
 * @inputType GetOrganizationUserIdentifiersArgs
 */
const getOrganizationUserIdentifiersArgs = z.strictObject({
  /** The organization whose user identifiers to list. */
  organizationId: idArg,
  /** Keep only the identifier with this abbreviation. */
  abbreviation: z.string().optional(),
});

export interface GetOrganizationUserIdentifiersResult {
  /** The organization asked about. */
  organizationId: number;
  /** The identifiers in use (abbreviation and label), after the filter, in the service's order. */
  userIdentifiers: UserIdentifier[];
}

/** Lists the user identifiers defined in an organization (`GET /v1/organizations/{orgId}/userIdentifiers`, all pages; org admin). */
export const getOrganizationUserIdentifiers: DataSourceFn<GetOrganizationUserIdentifiersArgs, GetOrganizationUserIdentifiersResult> =
  defineDataSource({
    name: "getOrganizationUserIdentifiers",
    args: getOrganizationUserIdentifiersArgs,
    read: async ({ organizationId, ...args }, { client, reading, callOptions }) => {
      const all = await reading(`the user identifiers of organization ${organizationId}`, () =>
        client.listAll("GetOrganizationUserIdentifiers", { orgId: organizationId }, callOptions),
      );
      const userIdentifiers = all.filter((i) => args.abbreviation === undefined || i.abbreviation === args.abbreviation);
      return { organizationId, userIdentifiers };
    },
  });

/** The Output form of getOrganizationUserIdentifiers, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getOrganizationUserIdentifiersOutput = outputForm(getOrganizationUserIdentifiers);

// ------------------------------------------------------------------------------------------------
// Database users
// ------------------------------------------------------------------------------------------------

/**
 * getDatabaseUsers arguments; `name`/`nameContains` match the full name or username.
 * @inputType GetDatabaseUsersArgs
 */
const getDatabaseUsersArgs = z.strictObject({
  ...nameFilterArgs.shape,
  /** The database whose users to list. */
  databaseId: idArg,
  /** Keep only users holding this database permission. */
  permission: DatabasePermission.optional(),
  /** Keep only active (true) or inactive (false) users. */
  active: z.boolean().optional(),
});

export interface GetDatabaseUsersResult {
  /** The database asked about. */
  databaseId: number;
  /** The users with database permissions, after the filters, in the service's order. */
  users: DatabaseUser[];
  /** Their user ids, in the same order. */
  ids: number[];
}

/**
 * Lists every user holding permissions on a database (`GET /v1/databases/{databaseId}/users`, all pages; DB_ADMIN, or org admin of
 * the owner when the database allows org admin access), then filters.
 */
export const getDatabaseUsers: DataSourceFn<GetDatabaseUsersArgs, GetDatabaseUsersResult> = defineDataSource({
  name: "getDatabaseUsers",
  args: getDatabaseUsersArgs,
  read: async ({ databaseId, ...args }, { client, reading, callOptions }) => {
    const all = await reading(`the users of database ${databaseId}`, () => client.listAll("GetDatabaseUsers", { databaseId }, callOptions));
    const users = all.filter(
      (u) =>
        matchesName({ name: args.name }, fullName(u.user.firstName, u.user.lastName), u.user.username) &&
        matchesName({ nameContains: args.nameContains }, fullName(u.user.firstName, u.user.lastName), u.user.username) &&
        (args.permission === undefined || u.permissions.includes(args.permission)) &&
        matchesFlag(args.active, u.active),
    );
    return { databaseId, users, ids: users.map((u) => u.user.id) };
  },
});

/** The Output form of getDatabaseUsers, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getDatabaseUsersOutput = outputForm(getDatabaseUsers);

/**
 * getDatabaseUser arguments.
 * @inputType GetDatabaseUserArgs
 */
const getDatabaseUserArgs = z.strictObject({
  /** The database. */
  databaseId: idArg,
  /** The user's id. */
  userId: idArg,
});

/** getDatabaseUser result: the user's database permissions (`GET /v1/databases/{databaseId}/users/{userId}`). */
export type GetDatabaseUserResult = DatabaseUser;

/** Reads one user's permissions on a database (`GET /v1/databases/{databaseId}/users/{userId}`; same access as `GET /v1/databases/{databaseId}/users`). A user without permissions there is a 404 error. */
export const getDatabaseUser: DataSourceFn<GetDatabaseUserArgs, GetDatabaseUserResult> = defineDataSource({
  name: "getDatabaseUser",
  args: getDatabaseUserArgs,
  read: ({ databaseId, userId }, { client, reading, callOptions }) =>
    reading(`user ${userId} of database ${databaseId}`, () =>
      client.call("GetDatabaseUser", { databaseId, userId }, undefined, callOptions),
    ),
});

/** The Output form of getDatabaseUser, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getDatabaseUserOutput = outputForm(getDatabaseUser);
