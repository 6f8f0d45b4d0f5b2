// Generated from contract/schemas.ts and contract/routes.ts by scripts/generate-types.mts: do not edit. Run `npm run generate` after changing them.

/** Organization permissions, spelled exactly as the spec spells them. */
export type OrganizationPermission = "ORG_ADMIN" | "AI_ADMIN" | "CLOUD_MANAGEMENT_ADMIN" | "LEGAL_HOLD_ADMIN";

/** Database permissions, spelled exactly as the spec spells them. */
export type DatabasePermission = "DB_ADMIN" | "DB_UPLOAD" | "DB_DELETE" | "DB_LEGAL_HOLD";

/** A database: a collection of documents owned by one organization. */
export type Database = {
  id: number;
  name: string;
  orgAdminAccess: boolean;
  owningOrganizationId: number;
  context?: string;
  databaseFields?: {
    name: string;
    type: string;
    value: string;
    [key: string]: unknown;
  }[];
  [key: string]: unknown;
};

/** An organization; `parentOrganizationId` is set for sub-organizations only. */
export type Organization = {
  id: number;
  name: string;
  parentOrganizationId?: number | null;
  saml?: {
    mfaBypass: boolean;
    state: string;
    entityId?: string | null;
    updated?: string | null;
    [key: string]: unknown;
  } | null;
  [key: string]: unknown;
};

/** A project of a database; the last two fields appear only in a database's project list (E29). */
export type Project = {
  created: string;
  database: Database;
  displayName: string;
  eca: boolean;
  id: number;
  mfaRequired: boolean;
  name: string;
  partial: boolean;
  productionMode: boolean;
  suspended: boolean;
  emailThreadingStatus?: string;
  lastLogin?: string | null;
  [key: string]: unknown;
};

/** A user identifier: a short abbreviation and its label. */
export type UserIdentifier = {
  abbreviation: string;
  label: string;
  [key: string]: unknown;
};

/** A platform user. Which optional fields are present depends on the endpoint (see the spec). */
export type User = {
  id: number;
  firstName?: string | null;
  lastName?: string | null;
  title?: string | null;
  username?: string | null;
  email?: string;
  organizations?: {
    id: number;
    name: string;
    orgAdmin: boolean;
    [key: string]: unknown;
  }[];
  primaryOrganization?: number | null;
  userIdentifiers?: UserIdentifier[];
  lastActivity?: string | null;
  lastLoggedOut?: string | null;
  mfaRequired?: boolean;
  permissions?: OrganizationPermission[];
  [key: string]: unknown;
};

/** A user as the organization member endpoints (E18, E19, E21, E22) return it. */
export type Member = {
  id: number;
  email: string;
  userIdentifiers: UserIdentifier[];
  permissions: OrganizationPermission[];
  firstName?: string | null;
  lastName?: string | null;
  title?: string | null;
  username?: string | null;
  organizations?: {
    id: number;
    name: string;
    orgAdmin: boolean;
    [key: string]: unknown;
  }[];
  primaryOrganization?: number | null;
  lastActivity?: string | null;
  lastLoggedOut?: string | null;
  mfaRequired?: boolean;
  [key: string]: unknown;
};

/** A holder of database-level permissions (E23 to E26). */
export type DatabaseUser = {
  active: boolean;
  permissions: DatabasePermission[];
  user: User;
  [key: string]: unknown;
};

/** A pending or expired invitation to an organization. */
export type Invitation = {
  email: string;
  expiration: string;
  expired: boolean;
  organizationId: number;
  organizationPermissions: OrganizationPermission[];
  approvedBy?: number | null;
  firstName?: string | null;
  lastName?: string | null;
  invitedBy?: number | null;
  [key: string]: unknown;
};

/** Bytes by data type and the billable gigabytes of one kind of storage. */
export type SizeBreakdown = {
  billableGb: number;
  nativeBytes: number;
  processedBytes: number;
  producedBytes: number;
  [key: string]: unknown;
};

/** Standard and early-case-assessment storage. */
export type Size = {
  eca: SizeBreakdown;
  standard: SizeBreakdown;
  [key: string]: unknown;
};

/** A month's peak size (the basis of the bill) and final size (month end, or now). */
export type SizeSet = {
  finalSize: Size;
  peakSize: Size;
  [key: string]: unknown;
};

/** How a month is billed, the state at its end, and change timestamps where they apply. */
export type MonthStatus = {
  billingState: string;
  finalState: string;
  suspended?: string | null;
  deletionRequested?: string | null;
  deleted?: string | null;
  [key: string]: unknown;
};

/** A project's billing record within a database billing record. */
export type ProjectBilling = {
  created: string;
  displayName: string;
  eca: boolean;
  id: number;
  monthBilling: SizeSet;
  monthStatus: MonthStatus;
  name: string;
  partial: boolean;
  [key: string]: unknown;
};

/** A database's billing record for one month, with its projects (E7 elements, E28). */
export type DatabaseBilling = {
  created: string;
  id: number;
  name: string;
  monthBilling: SizeSet;
  monthStatus: MonthStatus;
  projects: ProjectBilling[];
  [key: string]: unknown;
};

/** A parent organization's month, over all databases of it and its sub-organizations (E8). */
export type ParentBilling = {
  active: SizeSet;
  suspended: SizeSet;
  [key: string]: unknown;
};

/** One entry of an organization's activity log; data and description are null for parent keys. */
export type ActivityEvent = {
  id: number;
  timestamp: number;
  type: string;
  organizationId: number;
  description: string | null;
  data: Record<string, unknown> | null;
  userId?: number | null;
  [key: string]: unknown;
};

/** Document counts and sizes of a database; each document counted once. */
export type DatabaseSize = {
  nativeDocs: {
    docCount: number;
    imageSize: number;
    nativeSize: number;
    textSize: number;
    [key: string]: unknown;
  };
  processedDocs: {
    docCount: number;
    imageSize: number;
    nativeSize: number;
    textSize: number;
    [key: string]: unknown;
  };
  producedDocs: {
    docCount: number;
    imageSize: number;
    nativeSize: number;
    textSize: number;
    [key: string]: unknown;
  };
  [key: string]: unknown;
};

/** A person to add to an organization (E19). */
export type AddUser = {
  email: string;
  firstName: string;
  lastName: string;
};

/** E19 body: people to add, all with the same organization permissions. */
export type AddUsersRequest = {
  users: AddUser[];
  permissions?: OrganizationPermission[];
};

/** E19 result: who became a member, who was invited, and which emails could not be parsed. */
export type AddUsersResult = {
  invalid: string[];
  invites: Invitation[];
  users: Member[];
  [key: string]: unknown;
};

/** E22 body: a field left out is left as it is. */
export type UpdateMemberRequest = {
  organizationPermissions?: OrganizationPermission[];
  userIdentifiers?: UserIdentifier[];
};

/** E26 body: the user's whole set of database permissions (it overwrites). */
export type SetDatabaseUserRequest = {
  databasePermissions: DatabasePermission[];
};

/** Create-dataset body; other request fields are "not shown" and pass through. */
export type CreateDatasetRequest = {
  name: string;
  description?: string;
  deduplication?: string;
  timezone?: string;
  [key: string]: unknown;
};

/** A dataset: the processing settings of the source files uploaded into it (up1). */
export type Dataset = {
  id: number;
  name: string;
  [key: string]: unknown;
};

/** Create-source-file body; `custodian` is the file-level custodian the spec describes. */
export type CreateSourceFileRequest = {
  filename: string;
  passwords?: string[];
  custodian?: string;
  childCustodians?: Record<string, string>;
  directLink?: string;
  [key: string]: unknown;
};

/** A source file of a dataset and where its upload or processing stands (up2, up5). */
export type SourceFile = {
  id: number;
  state: string;
  [key: string]: unknown;
};

/** A pre-authenticated URL for one part (up3). */
export type PartUrl = {
  partNumber: number;
  url: string;
  [key: string]: unknown;
};

/** A part the service has received (up4). */
export type UploadedPart = {
  partNumber: number;
  etag: string;
  size: number;
  [key: string]: unknown;
};

/** Complete-upload body (up5): ETags in part order, optionally the whole file's SHA1. */
export type CompleteUploadRequest = {
  etags: string[];
  sha1?: string;
};

/** The error body: `{title, status}`, or `{message, status}` on some not-found answers. */
export type ErrorBody = {
  title?: string;
  message?: string;
  status?: number;
  [key: string]: unknown;
};

/**
 * Every operation of the route table (contract/routes.ts), by operation id: its path and query parameters as a caller
 * writes them, its JSON body (`never` when it takes none, FormData for a multipart upload), the `data` of its answer,
 * and its parameters and JSON body as a server has them once the route's schemas parsed them (ids as numbers;
 * `never` for no JSON body, a multipart upload included).
 */
export interface Operations {
  /** E1: List the databases the caller administers. */
  GetDatabases: {
    params: {
      after?: unknown;
      limit?: unknown;
    };
    body: never;
    data: Database[];
    parsedParams: {
      after?: number;
      limit?: number;
    };
    parsedBody: never;
  };
  /** E2: Read the user behind the API key. */
  GetCurrentUser: {
    params: Record<string, never>;
    body: never;
    data: User;
    parsedParams: Record<string, never>;
    parsedBody: never;
  };
  /** E3: List the caller's organizations and their sub-organizations. */
  GetOrganizations: {
    params: {
      after?: unknown;
      limit?: unknown;
    };
    body: never;
    data: Organization[];
    parsedParams: {
      after?: number;
      limit?: number;
    };
    parsedBody: never;
  };
  /** E4: List the projects the caller can access. */
  GetProjects: {
    params: {
      after?: unknown;
      limit?: unknown;
    };
    body: never;
    data: Project[];
    parsedParams: {
      after?: number;
      limit?: number;
    };
    parsedBody: never;
  };
  /** E5: Sync a legal-hold custodian directory from a CSV file. */
  PostDirectoryCustodians: {
    params: {
      directoryId: unknown;
    };
    body: FormData;
    data: {
      custodians: string[];
      [key: string]: unknown;
    };
    parsedParams: {
      directoryId: number;
    };
    parsedBody: never;
  };
  /** E6: Read an organization. */
  GetOrganization: {
    params: {
      orgId: unknown;
    };
    body: never;
    data: Organization;
    parsedParams: {
      orgId: number;
    };
    parsedBody: never;
  };
  /** E7: Monthly billing of the organization's databases. */
  GetOrganizationBilling: {
    params: {
      orgId: unknown;
      after?: unknown;
      limit?: unknown;
      year?: unknown;
      month?: unknown;
    };
    body: never;
    data: DatabaseBilling[];
    parsedParams: {
      orgId: number;
      after?: number;
      limit?: number;
      year?: number;
      month?: number;
    };
    parsedBody: never;
  };
  /** E8: Monthly billing aggregated over a parent organization and its sub-organizations. */
  GetParentOrganizationBilling: {
    params: {
      orgId: unknown;
      year?: unknown;
      month?: unknown;
    };
    body: never;
    data: ParentBilling;
    parsedParams: {
      orgId: number;
      year?: number;
      month?: number;
    };
    parsedBody: never;
  };
  /** E9: List an organization's databases. */
  GetOrganizationDatabases: {
    params: {
      orgId: unknown;
      after?: unknown;
      limit?: unknown;
    };
    body: never;
    data: Database[];
    parsedParams: {
      orgId: number;
      after?: number;
      limit?: number;
    };
    parsedBody: never;
  };
  /** E10: Activity events in a time range (begin inclusive, end exclusive). */
  GetOrganizationEvents: {
    params: {
      orgId: unknown;
      begin: unknown;
      end: unknown;
      limit?: unknown;
    };
    body: never;
    data: ActivityEvent[];
    parsedParams: {
      orgId: number;
      begin: number;
      end: number;
      limit?: number;
    };
    parsedBody: never;
  };
  /** E11: Activity events after an event id. */
  GetOrganizationEventsAfter: {
    params: {
      orgId: unknown;
      eventId: unknown;
      limit?: unknown;
    };
    body: never;
    data: ActivityEvent[];
    parsedParams: {
      orgId: number;
      eventId: number;
      limit?: number;
    };
    parsedBody: never;
  };
  /** E12: The most recent activity events. */
  GetRecentOrganizationEvents: {
    params: {
      orgId: unknown;
      limit?: unknown;
    };
    body: never;
    data: {
      events: ActivityEvent[];
      [key: string]: unknown;
    };
    parsedParams: {
      orgId: number;
      limit?: number;
    };
    parsedBody: never;
  };
  /** E13: Delete a pending invitation. */
  DeleteOrganizationInvitation: {
    params: {
      orgId: unknown;
    };
    body: {
      email: string;
    };
    data: unknown;
    parsedParams: {
      orgId: number;
    };
    parsedBody: {
      email: string;
    };
  };
  /** E14: List pending and expired invitations. */
  GetOrganizationInvitations: {
    params: {
      orgId: unknown;
    };
    body: never;
    data: {
      invitations: Invitation[];
      [key: string]: unknown;
    };
    parsedParams: {
      orgId: number;
    };
    parsedBody: never;
  };
  /** E15: Re-send an invitation and reset its expiration. */
  PostOrganizationInvitationResend: {
    params: {
      orgId: unknown;
    };
    body: {
      email: string;
    };
    data: Invitation;
    parsedParams: {
      orgId: number;
    };
    parsedBody: {
      email: string;
    };
  };
  /** E16: List an organization's projects. */
  GetOrganizationProjects: {
    params: {
      orgId: unknown;
      after?: unknown;
      limit?: unknown;
    };
    body: never;
    data: Project[];
    parsedParams: {
      orgId: number;
      after?: number;
      limit?: number;
    };
    parsedBody: never;
  };
  /** E17: List the user identifiers in use in an organization. */
  GetOrganizationUserIdentifiers: {
    params: {
      orgId: unknown;
      after?: unknown;
      limit?: unknown;
    };
    body: never;
    data: UserIdentifier[];
    parsedParams: {
      orgId: number;
      after?: number;
      limit?: number;
    };
    parsedBody: never;
  };
  /** E18: List an organization's members with their permissions. */
  GetOrganizationUsers: {
    params: {
      orgId: unknown;
      after?: unknown;
      limit?: unknown;
    };
    body: never;
    data: Member[];
    parsedParams: {
      orgId: number;
      after?: number;
      limit?: number;
    };
    parsedBody: never;
  };
  /** E19: Add members (existing users) or invite people (new emails). */
  PostOrganizationUsers: {
    params: {
      orgId: unknown;
    };
    body: AddUsersRequest;
    data: AddUsersResult;
    parsedParams: {
      orgId: number;
    };
    parsedBody: AddUsersRequest;
  };
  /** E20: Remove a member from the organization and its projects. */
  DeleteOrganizationUser: {
    params: {
      orgId: unknown;
      userId: unknown;
    };
    body: never;
    data: unknown;
    parsedParams: {
      orgId: number;
      userId: number;
    };
    parsedBody: never;
  };
  /** E21: Read one member. */
  GetOrganizationUser: {
    params: {
      orgId: unknown;
      userId: unknown;
    };
    body: never;
    data: Member;
    parsedParams: {
      orgId: number;
      userId: number;
    };
    parsedBody: never;
  };
  /** E22: Update a member's permissions or identifiers (fields left out stay as they are). */
  PatchOrganizationUser: {
    params: {
      orgId: unknown;
      userId: unknown;
    };
    body: UpdateMemberRequest;
    data: Member;
    parsedParams: {
      orgId: number;
      userId: number;
    };
    parsedBody: UpdateMemberRequest;
  };
  /** E23: List the users with permissions on a database. */
  GetDatabaseUsers: {
    params: {
      databaseId: unknown;
      after?: unknown;
      limit?: unknown;
    };
    body: never;
    data: DatabaseUser[];
    parsedParams: {
      databaseId: number;
      after?: number;
      limit?: number;
    };
    parsedBody: never;
  };
  /** E24: Remove a user's database permissions. */
  DeleteDatabaseUser: {
    params: {
      databaseId: unknown;
      userId: unknown;
    };
    body: never;
    data: unknown;
    parsedParams: {
      databaseId: number;
      userId: number;
    };
    parsedBody: never;
  };
  /** E25: Read one user's database permissions. */
  GetDatabaseUser: {
    params: {
      databaseId: unknown;
      userId: unknown;
    };
    body: never;
    data: DatabaseUser;
    parsedParams: {
      databaseId: number;
      userId: number;
    };
    parsedBody: never;
  };
  /** E26: Set (overwrite) a user's database permissions. */
  PutDatabaseUser: {
    params: {
      databaseId: unknown;
      userId: unknown;
    };
    body: SetDatabaseUserRequest;
    data: DatabaseUser;
    parsedParams: {
      databaseId: number;
      userId: number;
    };
    parsedBody: SetDatabaseUserRequest;
  };
  /** E27: Read a database. */
  GetDatabase: {
    params: {
      databaseId: unknown;
    };
    body: never;
    data: Database;
    parsedParams: {
      databaseId: number;
    };
    parsedBody: never;
  };
  /** E28: Monthly billing of a database and its projects. */
  GetDatabaseBilling: {
    params: {
      databaseId: unknown;
      year?: unknown;
      month?: unknown;
    };
    body: never;
    data: DatabaseBilling;
    parsedParams: {
      databaseId: number;
      year?: number;
      month?: number;
    };
    parsedBody: never;
  };
  /** E29: List a database's projects. */
  GetDatabaseProjects: {
    params: {
      databaseId: unknown;
      after?: unknown;
      limit?: unknown;
    };
    body: never;
    data: Project[];
    parsedParams: {
      databaseId: number;
      after?: number;
      limit?: number;
    };
    parsedBody: never;
  };
  /** E30: Document counts and sizes of a database. */
  GetDatabaseSize: {
    params: {
      databaseId: unknown;
    };
    body: never;
    data: DatabaseSize;
    parsedParams: {
      databaseId: number;
    };
    parsedBody: never;
  };
  /** up1: Create a dataset (a processing configuration for uploads). */
  PostDatabaseDataset: {
    params: {
      databaseId: unknown;
    };
    body: CreateDatasetRequest;
    data: Dataset;
    parsedParams: {
      databaseId: number;
    };
    parsedBody: CreateDatasetRequest;
  };
  /** up2: Create a source file in a dataset, to upload in parts or fetch from a direct link. */
  PostDatasetFile: {
    params: {
      databaseId: unknown;
      datasetId: unknown;
    };
    body: CreateSourceFileRequest;
    data: SourceFile;
    parsedParams: {
      databaseId: number;
      datasetId: number;
    };
    parsedBody: CreateSourceFileRequest;
  };
  /** up3: Get a pre-authenticated URL to upload one part. */
  PostSourceFilePart: {
    params: {
      databaseId: unknown;
      sourceFileId: unknown;
      partNumber: unknown;
    };
    body: never;
    data: PartUrl;
    parsedParams: {
      databaseId: number;
      sourceFileId: number;
      partNumber: number;
    };
    parsedBody: never;
  };
  /** up4: List the parts received so far, to resume an upload. */
  GetSourceFileParts: {
    params: {
      databaseId: unknown;
      sourceFileId: unknown;
    };
    body: never;
    data: UploadedPart[];
    parsedParams: {
      databaseId: number;
      sourceFileId: number;
    };
    parsedBody: never;
  };
  /** up5: Complete an upload: assemble the parts and start processing. */
  PostSourceFile: {
    params: {
      databaseId: unknown;
      sourceFileId: unknown;
    };
    body: CompleteUploadRequest;
    data: SourceFile;
    parsedParams: {
      databaseId: number;
      sourceFileId: number;
    };
    parsedBody: CompleteUploadRequest;
  };
}
