/**
 * zod schemas for every entity of the admin API (../shared/spec/admin-api.md), in one place.
 *
 * Entities are loose objects: fields the spec calls "not shown" pass through untouched, so a
 * live service that sends more than the spec lists never fails validation. Fields the spec marks
 * conditional ("set for sub-organizations", "only in the database's project list") are optional.
 *
 * An entity's type is its schema's output, generated into zod-free TypeScript
 * (types.generated.ts, `npm run generate`) so that published declarations never import zod:
 * `export type X = generated.X` beside `export const X` names it here, and tells the generator
 * to print it.
 */
import { z } from "zod";
import type * as generated from "./types.generated";
import { ORGANIZATION_PERMISSIONS } from "./grants";

/** An ISO 8601 UTC timestamp as the service sends it. */
export const Timestamp = z.string();

/** A list of distinct items; the service rejects repeated permissions ("unique items"). */
export function uniqueArray<T extends z.ZodType>(item: T) {
  return z.array(item).refine((a) => new Set(a as unknown[]).size === a.length, {
    message: "must not repeat an item (the service takes unique items)",
  });
}

/** Organization permissions, spelled exactly as the spec spells them. */
export const OrganizationPermission = z.enum(ORGANIZATION_PERMISSIONS);
export type OrganizationPermission = generated.OrganizationPermission;

/** Database permissions, spelled exactly as the spec spells them. */
export const DatabasePermission = z.enum(["DB_ADMIN", "DB_UPLOAD", "DB_DELETE", "DB_LEGAL_HOLD"]);
export type DatabasePermission = generated.DatabasePermission;

/** Billing and final states (contract: ACTIVE, SUSPENDED, DELETED). Other spellings pass as strings. */
export const BillingState = z.union([z.enum(["ACTIVE", "SUSPENDED", "DELETED"]), z.string()]);

/** Source file states (contract: UPLOADING, PROCESSING, PROCESSED). */
export const SourceFileState = z.union([z.enum(["UPLOADING", "PROCESSING", "PROCESSED"]), z.string()]);

export const DatabaseField = z.looseObject({ name: z.string(), type: z.string(), value: z.string() });

/** A database: a collection of documents owned by one organization. */
export const Database = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  context: z.string().optional(),
  databaseFields: z.array(DatabaseField).optional(),
  orgAdminAccess: z.boolean(),
  owningOrganizationId: z.number().int(),
});
export type Database = generated.Database;

export const Saml = z.looseObject({
  entityId: z.string().nullish(),
  mfaBypass: z.boolean(),
  state: z.string(),
  updated: Timestamp.nullish(),
});

/** An organization; `parentOrganizationId` is set for sub-organizations only. */
export const Organization = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  parentOrganizationId: z.number().int().nullish(),
  saml: Saml.nullish(),
});
export type Organization = generated.Organization;

/** A project of a database; the last two fields appear only in a database's project list (E29). */
export const Project = z.looseObject({
  created: Timestamp,
  database: Database,
  displayName: z.string(),
  eca: z.boolean(),
  id: z.number().int(),
  mfaRequired: z.boolean(),
  name: z.string(),
  partial: z.boolean(),
  productionMode: z.boolean(),
  suspended: z.boolean(),
  emailThreadingStatus: z.string().optional(),
  lastLogin: Timestamp.nullish(),
});
export type Project = generated.Project;

/** A user identifier: a short abbreviation and its label. */
export const UserIdentifier = z.looseObject({ abbreviation: z.string(), label: z.string() });
export type UserIdentifier = generated.UserIdentifier;

export const UserOrganization = z.looseObject({ id: z.number().int(), name: z.string(), orgAdmin: z.boolean() });

/** A platform user. Which optional fields are present depends on the endpoint (see the spec). */
export const User = z.looseObject({
  id: z.number().int(),
  firstName: z.string().nullish(),
  lastName: z.string().nullish(),
  title: z.string().nullish(),
  username: z.string().nullish(),
  email: z.string().optional(),
  organizations: z.array(UserOrganization).optional(),
  primaryOrganization: z.number().int().nullish(),
  userIdentifiers: z.array(UserIdentifier).optional(),
  lastActivity: Timestamp.nullish(),
  lastLoggedOut: Timestamp.nullish(),
  mfaRequired: z.boolean().optional(),
  permissions: z.array(OrganizationPermission).optional(),
});
export type User = generated.User;

/** A user as the organization member endpoints (E18, E19, E21, E22) return it. */
export const Member = User.extend({
  email: z.string(),
  userIdentifiers: z.array(UserIdentifier),
  permissions: z.array(OrganizationPermission),
});
export type Member = generated.Member;

/** A holder of database-level permissions (E23 to E26). */
export const DatabaseUser = z.looseObject({
  active: z.boolean(),
  permissions: z.array(DatabasePermission),
  user: User,
});
export type DatabaseUser = generated.DatabaseUser;

/** A pending or expired invitation to an organization. */
export const Invitation = z.looseObject({
  approvedBy: z.number().int().nullish(),
  email: z.string(),
  expiration: Timestamp,
  expired: z.boolean(),
  firstName: z.string().nullish(),
  lastName: z.string().nullish(),
  invitedBy: z.number().int().nullish(),
  organizationId: z.number().int(),
  organizationPermissions: z.array(OrganizationPermission),
});
export type Invitation = generated.Invitation;

/** Bytes by data type and the billable gigabytes of one kind of storage. */
export const SizeBreakdown = z.looseObject({
  billableGb: z.number(),
  nativeBytes: z.number(),
  processedBytes: z.number(),
  producedBytes: z.number(),
});
export type SizeBreakdown = generated.SizeBreakdown;

/** Standard and early-case-assessment storage. */
export const Size = z.looseObject({ eca: SizeBreakdown, standard: SizeBreakdown });
export type Size = generated.Size;

/** A month's peak size (the basis of the bill) and final size (month end, or now). */
export const SizeSet = z.looseObject({ finalSize: Size, peakSize: Size });
export type SizeSet = generated.SizeSet;

/** How a month is billed, the state at its end, and change timestamps where they apply. */
export const MonthStatus = z.looseObject({
  billingState: BillingState,
  finalState: BillingState,
  suspended: Timestamp.nullish(),
  deletionRequested: Timestamp.nullish(),
  deleted: Timestamp.nullish(),
});
export type MonthStatus = generated.MonthStatus;

/** A project's billing record within a database billing record. */
export const ProjectBilling = z.looseObject({
  created: Timestamp,
  displayName: z.string(),
  eca: z.boolean(),
  id: z.number().int(),
  monthBilling: SizeSet,
  monthStatus: MonthStatus,
  name: z.string(),
  partial: z.boolean(),
});
export type ProjectBilling = generated.ProjectBilling;

/** A database's billing record for one month, with its projects (E7 elements, E28). */
export const DatabaseBilling = z.looseObject({
  created: Timestamp,
  id: z.number().int(),
  name: z.string(),
  monthBilling: SizeSet,
  monthStatus: MonthStatus,
  projects: z.array(ProjectBilling),
});
export type DatabaseBilling = generated.DatabaseBilling;

/** A parent organization's month, over all databases of it and its sub-organizations (E8). */
export const ParentBilling = z.looseObject({ active: SizeSet, suspended: SizeSet });
export type ParentBilling = generated.ParentBilling;

/** One entry of an organization's activity log; data and description are null for parent keys. */
export const ActivityEvent = z.looseObject({
  id: z.number().int(),
  timestamp: z.number().int(),
  type: z.string(),
  userId: z.number().int().nullish(),
  organizationId: z.number().int(),
  description: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).nullable(),
});
export type ActivityEvent = generated.ActivityEvent;

export const DocCounts = z.looseObject({
  docCount: z.number().int(),
  imageSize: z.number().int(),
  nativeSize: z.number().int(),
  textSize: z.number().int(),
});

/** Document counts and sizes of a database; each document counted once. */
export const DatabaseSize = z.looseObject({ nativeDocs: DocCounts, processedDocs: DocCounts, producedDocs: DocCounts });
export type DatabaseSize = generated.DatabaseSize;

/** A person to add to an organization (E19). */
export const AddUser = z.object({
  email: z.string().min(1, { message: "must not be empty" }),
  firstName: z.string(),
  lastName: z.string(),
});
export type AddUser = generated.AddUser;

/** E19 body: people to add, all with the same organization permissions. */
export const AddUsersRequest = z.object({
  permissions: uniqueArray(OrganizationPermission).optional(),
  users: z.array(AddUser).min(1, { message: "must name at least one user" }),
});
export type AddUsersRequest = generated.AddUsersRequest;

/** E19 result: who became a member, who was invited, and which emails could not be parsed. */
export const AddUsersResult = z.looseObject({
  invalid: z.array(z.string()),
  invites: z.array(Invitation),
  users: z.array(Member),
});
export type AddUsersResult = generated.AddUsersResult;

/** E22 body: a field left out is left as it is. */
export const UpdateMemberRequest = z.object({
  organizationPermissions: uniqueArray(OrganizationPermission).optional(),
  userIdentifiers: z.array(UserIdentifier).optional(),
});
export type UpdateMemberRequest = generated.UpdateMemberRequest;

/** E26 body: the user's whole set of database permissions (it overwrites). */
export const SetDatabaseUserRequest = z.object({ databasePermissions: uniqueArray(DatabasePermission) });
export type SetDatabaseUserRequest = generated.SetDatabaseUserRequest;

/** E13 and E15 body. */
export const EmailRequest = z.object({ email: z.string().min(1, { message: "must not be empty" }) });

/** E14 result. */
export const InvitationList = z.looseObject({ invitations: z.array(Invitation) });

/** E5 result: the people the service ignored (a principal name but no email). */
export const CustodianSyncResult = z.looseObject({ custodians: z.array(z.string()) });

/** E12 result (and the events shape the paginator understands). */
export const EventList = z.looseObject({ events: z.array(ActivityEvent) });

/** Create-dataset body; other request fields are "not shown" and pass through. */
export const CreateDatasetRequest = z.looseObject({
  name: z.string().min(1, { message: "must not be empty" }),
  description: z.string().optional(),
  deduplication: z.string().optional(),
  timezone: z.string().optional(),
});
export type CreateDatasetRequest = generated.CreateDatasetRequest;

/** A dataset: the processing settings of the source files uploaded into it (up1). */
export const Dataset = z.looseObject({ id: z.number().int(), name: z.string() });
export type Dataset = generated.Dataset;

/** Create-source-file body; `custodian` is the file-level custodian the spec describes. */
export const CreateSourceFileRequest = z.looseObject({
  filename: z.string().min(1, { message: "must not be empty" }),
  passwords: z.array(z.string()).optional(),
  custodian: z.string().optional(),
  childCustodians: z.record(z.string(), z.string()).optional(),
  directLink: z.url({ message: "must be a URL" }).optional(),
});
export type CreateSourceFileRequest = generated.CreateSourceFileRequest;

/** A source file of a dataset and where its upload or processing stands (up2, up5). */
export const SourceFile = z.looseObject({ id: z.number().int(), state: SourceFileState });
export type SourceFile = generated.SourceFile;

/** A pre-authenticated URL for one part (up3). */
export const PartUrl = z.looseObject({ partNumber: z.number().int(), url: z.string() });
export type PartUrl = generated.PartUrl;

/** A part the service has received (up4). */
export const UploadedPart = z.looseObject({ partNumber: z.number().int(), etag: z.string(), size: z.number().int() });
export type UploadedPart = generated.UploadedPart;

/** Complete-upload body (up5): ETags in part order, optionally the whole file's SHA1. */
export const CompleteUploadRequest = z.object({
  etags: z.array(z.string()).min(1, { message: "must hold at least one ETag" }),
  sha1: z
    .string()
    .regex(/^[0-9a-f]{40}$/i, { message: "must be 40 hex digits" })
    .optional(),
});
export type CompleteUploadRequest = generated.CompleteUploadRequest;

/** The error body: `{title, status}`, or `{message, status}` on some not-found answers. */
export const ErrorBody = z.looseObject({
  title: z.string().optional(),
  message: z.string().optional(),
  status: z.number().int().optional(),
});
export type ErrorBody = generated.ErrorBody;
