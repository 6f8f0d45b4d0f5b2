// Generated from the tagged schemas of provider/data/ by scripts/generate-types.mts: do not edit. Run `npm run generate` after changing them.

import type { DatabasePermission, OrganizationPermission } from "../../contract/types.generated";

/** getAccessMatrix arguments. */
export type GetAccessMatrixArgs = {
  /** The organization to review. */
  organizationId: string | number;
  /** Include each member's lastActivity (off by default: it changes between runs and would show in diffs). */
  includeActivity?: boolean;
  /**
   * The program's ethical walls (the EthicalWall resources' arguments, which a data source cannot
   * read from the stack): each is listed in the review with its state (held, breached, unenforceable).
   * Each gives exactly one of `people` (walled off) and `team` (a matter team: everyone else is walled off).
   */
  walls?: {
    /** The wall's name in the report (e.g. the EthicalWall's resource name). */
    name: string;
    /** The walled databases. */
    databaseIds: number[];
    /** Why the wall stands. */
    reason: string;
    /** Exclusionary form: emails and `*@domain` patterns walled off. */
    people?: string[];
    /** Matter-team form: the team, emails and `*@domain` patterns; everyone else with access to the databases is flagged. */
    team?: string[];
    /** Matter-team form only: others who may see the matter besides the team. */
    alsoAllowed?: string[];
  }[];
};

/** getCurrentUser arguments: none. */
export type GetCurrentUserArgs = Record<string, never>;

/** getOrganizations arguments: filters applied after every page is read. */
export type GetOrganizationsArgs = {
  /** Keep only the sub-organizations of this organization. */
  parentOrganizationId?: string | number;
  /** true: only organizations with a parent; false: only top-level ones. */
  isSubOrganization?: boolean;
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
};

/** getOrganization arguments. */
export type GetOrganizationArgs = {
  /** The organization to read. */
  organizationId: string | number;
};

/** getOrganizationBilling arguments; the name filters match database names. */
export type GetOrganizationBillingArgs = {
  /** The organization. */
  organizationId: string | number;
  /** Four-digit year; default the current year (UTC). */
  year?: number;
  /** 1..12; default the current month (UTC). */
  month?: number;
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
};

/** getParentOrganizationBilling arguments. */
export type GetParentOrganizationBillingArgs = {
  /** The parent organization. */
  organizationId: string | number;
  /** Four-digit year; default the current year (UTC). */
  year?: number;
  /** 1..12; default the current month (UTC). */
  month?: number;
};

/** getDatabaseBilling arguments. */
export type GetDatabaseBillingArgs = {
  /** The database. */
  databaseId: string | number;
  /** Four-digit year; default the current year (UTC). */
  year?: number;
  /** 1..12; default the current month (UTC). */
  month?: number;
};

/** Year and month arguments: each defaults to the current one (UTC). */
export type MonthArgs = {
  /** Four-digit year; default the current year (UTC). */
  year?: number;
  /** 1..12; default the current month (UTC). */
  month?: number;
};

/** getBillingSummary arguments: `months` months ending with year/month (default: the current month only). */
export type GetBillingSummaryArgs = {
  /** The organization. */
  organizationId: string | number;
  /** Four-digit year; default the current year (UTC). */
  year?: number;
  /** 1..12; default the current month (UTC). */
  month?: number;
  /** How many months to cover, ending with year/month: 1..36, default 1. */
  months?: number;
};

/** getParentBillingSummary arguments: `months` months ending with year/month (default: the current month only). */
export type GetParentBillingSummaryArgs = {
  /** The parent organization. */
  organizationId: string | number;
  /** Four-digit year; default the current year (UTC). */
  year?: number;
  /** 1..12; default the current month (UTC). */
  month?: number;
  /** How many months to cover, ending with year/month: 1..36, default 1. */
  months?: number;
};

/** Filters shared by the database lists, applied after every page is read. */
export type DatabaseFilter = {
  /** Keep only databases with this orgAdminAccess setting. */
  orgAdminAccess?: boolean;
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
};

/** getDatabases arguments: filters applied after every page is read. */
export type GetDatabasesArgs = {
  /** Keep only databases with this orgAdminAccess setting. */
  orgAdminAccess?: boolean;
  /** Keep only databases owned by this organization. */
  organizationId?: string | number;
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
};

/** getDatabase arguments. */
export type GetDatabaseArgs = {
  /** The database to read. */
  databaseId: string | number;
};

/** getOrganizationDatabases arguments: the organization, and filters applied after every page is read. */
export type GetOrganizationDatabasesArgs = {
  /** The owning organization. */
  organizationId: string | number;
  /** Keep only databases with this orgAdminAccess setting. */
  orgAdminAccess?: boolean;
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
};

/** getDatabaseSize arguments. */
export type GetDatabaseSizeArgs = {
  /** The database to measure. */
  databaseId: string | number;
};

/** A point in time: unix milliseconds, a Date, or an ISO 8601 string. */
export type TimeInput = string | number | Date;

/** getActivityEvents arguments: give `begin` (and optionally `end`), or `afterEventId`, or `recent: true`. */
export type GetActivityEventsArgs = {
  /** The organization whose activity log to read. */
  organizationId: string | number;
  /** Range mode (`GET /v1/organizations/{orgId}/events`): the first instant, inclusive. */
  begin?: string | number | Date;
  /** Range mode (`GET /v1/organizations/{orgId}/events`): the end, exclusive. Defaults to now (this machine's clock) plus one millisecond. */
  end?: string | number | Date;
  /** After mode (`GET /v1/organizations/{orgId}/events/after/{eventId}`): every event with an id after this one. */
  afterEventId?: number;
  /** Recent mode (`GET /v1/organizations/{orgId}/events/recent`): the `limit` most recent events. */
  recent?: boolean;
  /** Range and after modes: events per page (1..10000, default 1000); every page is read. Recent mode: how many events (default 1000). */
  limit?: number;
  /** Keep only events of these types (applied after reading). */
  types?: string[];
  /** Keep only events by this user (applied after reading). */
  userId?: string | number;
};

/** Name filters shared by list data sources. */
export type NameFilter = {
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
};

/**
 * Member filters, applied after every page is read. `name` matches the full name ("First Last")
 * exactly; `nameContains` matches the full name, username or email, case-insensitively.
 */
export type MemberFilter = {
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
  /** Keep only members holding this organization permission. */
  permission?: OrganizationPermission;
  /** true: only members with no organization permission at all; false: only members with at least one. */
  noPermissions?: boolean;
  /** Keep only the member with this email (case-insensitive). */
  email?: string;
  /** Keep only members carrying a user identifier with this abbreviation. */
  userIdentifier?: string;
};

/** getOrganizationMembers arguments: the organization, and filters applied after every page is read. */
export type GetOrganizationMembersArgs = {
  /** The organization whose members to list. */
  organizationId: string | number;
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
  /** Keep only members holding this organization permission. */
  permission?: OrganizationPermission;
  /** true: only members with no organization permission at all; false: only members with at least one. */
  noPermissions?: boolean;
  /** Keep only the member with this email (case-insensitive). */
  email?: string;
  /** Keep only members carrying a user identifier with this abbreviation. */
  userIdentifier?: string;
};

/** getOrganizationMember arguments. */
export type GetOrganizationMemberArgs = {
  /** The organization. */
  organizationId: string | number;
  /** The member's user id. */
  userId: string | number;
};

/** Where an invitation stands: `pending` (can still be accepted) or `expired`. */
export type ListedInvitationStatus = "pending" | "expired";

/** getOrganizationInvitations arguments: the organization, and filters applied after reading. */
export type GetOrganizationInvitationsArgs = {
  /** The organization whose invitations to list. */
  organizationId: string | number;
  /** Keep only pending or only expired invitations; both when left out. */
  status?: "pending" | "expired";
  /** Keep only the invitation for this email (case-insensitive). */
  email?: string;
  /** Keep only invitations granting this organization permission. */
  permission?: OrganizationPermission;
};

/** getOrganizationUserIdentifiers arguments. */
export type GetOrganizationUserIdentifiersArgs = {
  /** The organization whose user identifiers to list. */
  organizationId: string | number;
  /** Keep only the identifier with this abbreviation. */
  abbreviation?: string;
};

/** getDatabaseUsers arguments; `name`/`nameContains` match the full name or username. */
export type GetDatabaseUsersArgs = {
  /** The database whose users to list. */
  databaseId: string | number;
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
  /** Keep only users holding this database permission. */
  permission?: DatabasePermission;
  /** Keep only active (true) or inactive (false) users. */
  active?: boolean;
};

/** getDatabaseUser arguments. */
export type GetDatabaseUserArgs = {
  /** The database. */
  databaseId: string | number;
  /** The user's id. */
  userId: string | number;
};

/** Project filters as parsed (ids are numbers), applied after every page is read. The name filters match `name` or `displayName`. */
export type ProjectFilter = {
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
  /** Keep only projects of databases owned by this organization. */
  organizationId?: number;
  /** Keep only projects of this database. */
  databaseId?: number;
  /** true: only suspended projects; false: only projects that are not suspended. */
  suspended?: boolean;
  /** true: only early-case-assessment projects; false: only the others. */
  eca?: boolean;
  /** true: only partial projects; false: only complete ones. */
  partial?: boolean;
  /** Keep only projects with this productionMode. */
  productionMode?: boolean;
  /** Keep only projects with this mfaRequired. */
  mfaRequired?: boolean;
};

/** getProjects arguments: filters applied after every page is read. */
export type GetProjectsArgs = {
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
  /** Keep only projects of databases owned by this organization. */
  organizationId?: string | number;
  /** Keep only projects of this database. */
  databaseId?: string | number;
  /** true: only suspended projects; false: only projects that are not suspended. */
  suspended?: boolean;
  /** true: only early-case-assessment projects; false: only the others. */
  eca?: boolean;
  /** true: only partial projects; false: only complete ones. */
  partial?: boolean;
  /** Keep only projects with this productionMode. */
  productionMode?: boolean;
  /** Keep only projects with this mfaRequired. */
  mfaRequired?: boolean;
};

/** getOrganizationProjects arguments: the organization, and filters applied after every page is read. */
export type GetOrganizationProjectsArgs = {
  /** The organization whose databases' projects to list. */
  organizationId: string | number;
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
  /** Keep only projects of this database. */
  databaseId?: string | number;
  /** true: only suspended projects; false: only projects that are not suspended. */
  suspended?: boolean;
  /** true: only early-case-assessment projects; false: only the others. */
  eca?: boolean;
  /** true: only partial projects; false: only complete ones. */
  partial?: boolean;
  /** Keep only projects with this productionMode. */
  productionMode?: boolean;
  /** Keep only projects with this mfaRequired. */
  mfaRequired?: boolean;
};

/** getDatabaseProjects arguments: the database, and filters applied after every page is read. */
export type GetDatabaseProjectsArgs = {
  /** The database whose projects to list. */
  databaseId: string | number;
  /** Keep only items whose name equals this exactly (case-sensitive). */
  name?: string;
  /** Keep only items whose name contains this (case-insensitive). */
  nameContains?: string;
  /** true: only suspended projects; false: only projects that are not suspended. */
  suspended?: boolean;
  /** true: only early-case-assessment projects; false: only the others. */
  eca?: boolean;
  /** true: only partial projects; false: only complete ones. */
  partial?: boolean;
  /** Keep only projects with this productionMode. */
  productionMode?: boolean;
  /** Keep only projects with this mfaRequired. */
  mfaRequired?: boolean;
};

/** getStalePrivilegedPeople arguments. */
export type GetStalePrivilegedPeopleArgs = {
  /** The organization to review (org admin of it: the access matrix needs it). */
  organizationId: string | number;
  /** Days without activity that make a person stale (default 90). */
  staleDays?: number;
  /** Days per privilege (ORG_ADMIN, DB_ADMIN, ...); a person's limit is the strictest of the privileges they hold. */
  staleDaysByPrivilege?: {
    ORG_ADMIN?: number;
    AI_ADMIN?: number;
    CLOUD_MANAGEMENT_ADMIN?: number;
    LEGAL_HOLD_ADMIN?: number;
    DB_ADMIN?: number;
  };
  /** The time the answer describes, unix milliseconds (default: the service's clock, from its Date header). */
  asOf?: number;
};

/** getWallsFromFile arguments. */
export type GetWallsFromFileArgs = {
  /** The wall file (CSV, docs/walls.md), relative to the program's folder. */
  path: string;
};
