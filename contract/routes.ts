/**
 * The route table: every operation of ../shared/contract.md as data. The client builds every URL
 * from it and the emulator routes every request with it; nothing else in the project writes a
 * path. A user whose live service differs changes one line here.
 */
import { z } from "zod";
import * as p from "./params";
import * as s from "./schemas";
import type { RouteDef } from "./routeDef";

export type { Envelope, HttpMethod, Pages, RouteDef, Schema } from "./routeDef";

/** A row as written here: a RouteDef whose params are a zod object, so the OpenAPI reader can list them. */
interface Row extends RouteDef {
  readonly params: z.ZodObject;
}

/** A row as written, with `largestPage` read from the limit parameter it takes. */
function route<const R extends Row>(r: R): R & { readonly largestPage?: number } {
  const limit = r.params.shape.limit;
  const largestPage = limit === p.listLimit ? p.LARGEST_LIST_PAGE : limit === p.eventLimit ? p.LARGEST_EVENT_PAGE : undefined;
  return largestPage === undefined ? r : { ...r, largestPage };
}

const orgId = { orgId: p.id };
const databaseId = { databaseId: p.id };

/** Every operation, keyed by operation id. */
// One operation per block, its facts on a few lines: the table reads as rows, so prettier leaves it.
// prettier-ignore
export const routes = {
  GetDatabases: route({
    id: "E1", operationId: "GetDatabases", method: "GET", path: "/v1/databases",
    params: z.object({ ...p.paging }), data: z.array(s.Database), envelope: "list", pages: "list", idempotent: true,
    summary: "List the databases the caller administers",
    access: "DB_ADMIN on a database, or org admin of its owning organization",
  }),
  GetCurrentUser: route({
    id: "E2", operationId: "GetCurrentUser", method: "GET", path: "/v1/users/me",
    params: z.object({}), data: s.User, envelope: "single", pages: "none", idempotent: true,
    summary: "Read the user behind the API key",
    access: "any valid key",
  }),
  GetOrganizations: route({
    id: "E3", operationId: "GetOrganizations", method: "GET", path: "/v1/organizations",
    params: z.object({ ...p.paging }), data: z.array(s.Organization), envelope: "list", pages: "list", idempotent: true,
    summary: "List the caller's organizations and their sub-organizations",
    access: "any valid key",
  }),
  GetProjects: route({
    id: "E4", operationId: "GetProjects", method: "GET", path: "/v1/projects",
    params: z.object({ ...p.paging }), data: z.array(s.Project), envelope: "list", pages: "list", idempotent: true,
    summary: "List the projects the caller can access",
    access: "access to the projects",
  }),
  PostDirectoryCustodians: route({
    id: "E5", operationId: "PostDirectoryCustodians", method: "POST", path: "/v1/directories/{directoryId}/custodians",
    params: z.object({ directoryId: p.id }), body: "multipart", data: s.CustodianSyncResult, envelope: "single",
    pages: "none", idempotent: true, // the sync overwrites: sending the same CSV twice gives the same directory
    summary: "Sync a legal-hold custodian directory from a CSV file",
    access: "org admin or LEGAL_HOLD_ADMIN in the organization owning directory {directoryId}",
  }),
  GetOrganization: route({
    id: "E6", operationId: "GetOrganization", method: "GET", path: "/v1/organizations/{orgId}",
    params: z.object({ ...orgId }), data: s.Organization, envelope: "single", pages: "none", idempotent: true,
    summary: "Read an organization",
    access: "membership of organization {orgId}, or parent org admin",
  }),
  GetOrganizationBilling: route({
    id: "E7", operationId: "GetOrganizationBilling", method: "GET", path: "/v1/organizations/{orgId}/billing",
    params: z.object({ ...orgId, year: p.year, month: p.month, ...p.paging }), data: z.array(s.DatabaseBilling),
    envelope: "list", pages: "list", idempotent: true,
    summary: "Monthly billing of the organization's databases",
    access: "org admin of organization {orgId}, or parent org admin",
  }),
  GetParentOrganizationBilling: route({
    id: "E8", operationId: "GetParentOrganizationBilling", method: "GET", path: "/v1/organizations/{orgId}/billing/aggregate",
    params: z.object({ ...orgId, year: p.year, month: p.month }), data: s.ParentBilling, envelope: "single",
    pages: "none", idempotent: true,
    summary: "Monthly billing aggregated over a parent organization and its sub-organizations",
    access: "org admin of organization {orgId}, or parent org admin",
  }),
  GetOrganizationDatabases: route({
    id: "E9", operationId: "GetOrganizationDatabases", method: "GET", path: "/v1/organizations/{orgId}/databases",
    params: z.object({ ...orgId, ...p.paging }), data: z.array(s.Database), envelope: "list", pages: "list", idempotent: true,
    summary: "List an organization's databases",
    access: "org admin of organization {orgId}, or parent org admin",
  }),
  GetOrganizationEvents: route({
    id: "E10", operationId: "GetOrganizationEvents", method: "GET", path: "/v1/organizations/{orgId}/events",
    params: z
      .object({ ...orgId, begin: p.unixMs, end: p.unixMs, limit: p.eventLimit })
      .refine((v) => v.end > v.begin, { message: "must be later than begin", path: ["end"] }),
    data: z.array(s.ActivityEvent), envelope: "list", pages: "list", idempotent: true,
    summary: "Activity events in a time range (begin inclusive, end exclusive)",
    access: "org admin of organization {orgId}, or parent org admin",
  }),
  GetOrganizationEventsAfter: route({
    id: "E11", operationId: "GetOrganizationEventsAfter", method: "GET", path: "/v1/organizations/{orgId}/events/after/{eventId}",
    params: z.object({ ...orgId, eventId: p.after.unwrap(), limit: p.eventLimit }), data: z.array(s.ActivityEvent),
    envelope: "list", pages: "list", idempotent: true,
    summary: "Activity events after an event id",
    access: "org admin of organization {orgId}, or parent org admin",
  }),
  GetRecentOrganizationEvents: route({
    id: "E12", operationId: "GetRecentOrganizationEvents", method: "GET", path: "/v1/organizations/{orgId}/events/recent",
    params: z.object({ ...orgId, limit: p.eventLimit }), data: s.EventList, envelope: "single", pages: "events", idempotent: true,
    summary: "The most recent activity events",
    access: "org admin of organization {orgId}, or parent org admin",
  }),
  DeleteOrganizationInvitation: route({
    id: "E13", operationId: "DeleteOrganizationInvitation", method: "DELETE", path: "/v1/organizations/{orgId}/invitations",
    params: z.object({ ...orgId }), body: s.EmailRequest, data: z.unknown(), envelope: "none", pages: "none", idempotent: true,
    summary: "Delete a pending invitation",
    access: "org admin of organization {orgId} (the spec does not state it; org admin is assumed)", notFoundBody: "message",
  }),
  GetOrganizationInvitations: route({
    id: "E14", operationId: "GetOrganizationInvitations", method: "GET", path: "/v1/organizations/{orgId}/invitations",
    params: z.object({ ...orgId }), data: s.InvitationList, envelope: "single", pages: "none", idempotent: true,
    summary: "List pending and expired invitations",
    access: "org admin of organization {orgId} (the spec does not state it; org admin is assumed)",
  }),
  PostOrganizationInvitationResend: route({
    id: "E15", operationId: "PostOrganizationInvitationResend", method: "POST", path: "/v1/organizations/{orgId}/invitations/resend",
    params: z.object({ ...orgId }), body: s.EmailRequest, data: s.Invitation, envelope: "single", pages: "none",
    idempotent: false, // each call sends an email
    summary: "Re-send an invitation and reset its expiration",
    access: "org admin of organization {orgId} (the spec does not state it; org admin is assumed)",
  }),
  GetOrganizationProjects: route({
    id: "E16", operationId: "GetOrganizationProjects", method: "GET", path: "/v1/organizations/{orgId}/projects",
    params: z.object({ ...orgId, ...p.paging }), data: z.array(s.Project), envelope: "list", pages: "list", idempotent: true,
    summary: "List an organization's projects",
    access: "org admin of organization {orgId}, or parent org admin",
  }),
  GetOrganizationUserIdentifiers: route({
    id: "E17", operationId: "GetOrganizationUserIdentifiers", method: "GET", path: "/v1/organizations/{orgId}/userIdentifiers",
    params: z.object({ ...orgId, ...p.paging }), data: z.array(s.UserIdentifier), envelope: "list", pages: "list", idempotent: true,
    summary: "List the user identifiers in use in an organization",
    access: "org admin of organization {orgId}",
  }),
  GetOrganizationUsers: route({
    id: "E18", operationId: "GetOrganizationUsers", method: "GET", path: "/v1/organizations/{orgId}/users",
    params: z.object({ ...orgId, ...p.paging }), data: z.array(s.Member), envelope: "list", pages: "list", idempotent: true,
    summary: "List an organization's members with their permissions",
    access: "org admin of organization {orgId}",
  }),
  PostOrganizationUsers: route({
    id: "E19", operationId: "PostOrganizationUsers", method: "POST", path: "/v1/organizations/{orgId}/users",
    params: z.object({ ...orgId }), body: s.AddUsersRequest, data: s.AddUsersResult, envelope: "single", pages: "none",
    idempotent: true, // adding a member twice is not an error, and a pending invitation is answered again
    summary: "Add members (existing users) or invite people (new emails)",
    access: "org admin of organization {orgId}",
  }),
  DeleteOrganizationUser: route({
    id: "E20", operationId: "DeleteOrganizationUser", method: "DELETE", path: "/v1/organizations/{orgId}/users/{userId}",
    params: z.object({ ...orgId, userId: p.id }), data: z.unknown(), envelope: "none", pages: "none", idempotent: true,
    summary: "Remove a member from the organization and its projects",
    access: "org admin of organization {orgId}", notFoundBody: "message",
  }),
  GetOrganizationUser: route({
    id: "E21", operationId: "GetOrganizationUser", method: "GET", path: "/v1/organizations/{orgId}/users/{userId}",
    params: z.object({ ...orgId, userId: p.id }), data: s.Member, envelope: "single", pages: "none", idempotent: true,
    summary: "Read one member",
    access: "org admin of organization {orgId}",
  }),
  PatchOrganizationUser: route({
    id: "E22", operationId: "PatchOrganizationUser", method: "PATCH", path: "/v1/organizations/{orgId}/users/{userId}",
    params: z.object({ ...orgId, userId: p.id }), body: s.UpdateMemberRequest, data: s.Member, envelope: "single",
    pages: "none", idempotent: true, // sets fields to given values
    summary: "Update a member's permissions or identifiers (fields left out stay as they are)",
    access: "org admin of organization {orgId}",
  }),
  GetDatabaseUsers: route({
    id: "E23", operationId: "GetDatabaseUsers", method: "GET", path: "/v1/databases/{databaseId}/users",
    params: z.object({ ...databaseId, ...p.paging }), data: z.array(s.DatabaseUser), envelope: "list", pages: "list", idempotent: true,
    summary: "List the users with permissions on a database",
    access: "DB_ADMIN on database {databaseId}, or org admin of its owning organization when the database allows org admin access (orgAdminAccess)",
  }),
  DeleteDatabaseUser: route({
    id: "E24", operationId: "DeleteDatabaseUser", method: "DELETE", path: "/v1/databases/{databaseId}/users/{userId}",
    params: z.object({ ...databaseId, userId: p.id }), data: z.unknown(), envelope: "none", pages: "none", idempotent: true,
    summary: "Remove a user's database permissions",
    access: "DB_ADMIN on database {databaseId}, or org admin of its owning organization when the database allows org admin access (orgAdminAccess)", notFoundBody: "message",
  }),
  GetDatabaseUser: route({
    id: "E25", operationId: "GetDatabaseUser", method: "GET", path: "/v1/databases/{databaseId}/users/{userId}",
    params: z.object({ ...databaseId, userId: p.id }), data: s.DatabaseUser, envelope: "single", pages: "none", idempotent: true,
    summary: "Read one user's database permissions",
    access: "DB_ADMIN on database {databaseId}, or org admin of its owning organization when the database allows org admin access (orgAdminAccess)",
  }),
  PutDatabaseUser: route({
    id: "E26", operationId: "PutDatabaseUser", method: "PUT", path: "/v1/databases/{databaseId}/users/{userId}",
    params: z.object({ ...databaseId, userId: p.id }), body: s.SetDatabaseUserRequest, data: s.DatabaseUser,
    envelope: "single", pages: "none", idempotent: true,
    summary: "Set (overwrite) a user's database permissions",
    access: "DB_ADMIN on database {databaseId}, or org admin of its owning organization when the database allows org admin access (orgAdminAccess)",
  }),
  GetDatabase: route({
    id: "E27", operationId: "GetDatabase", method: "GET", path: "/v1/databases/{databaseId}",
    params: z.object({ ...databaseId }), data: s.Database, envelope: "single", pages: "none", idempotent: true,
    summary: "Read a database",
    access: "DB_ADMIN on database {databaseId}, or org admin or parent org admin of its owning organization",
  }),
  GetDatabaseBilling: route({
    id: "E28", operationId: "GetDatabaseBilling", method: "GET", path: "/v1/databases/{databaseId}/billing",
    params: z.object({ ...databaseId, year: p.year, month: p.month }), data: s.DatabaseBilling, envelope: "single",
    pages: "none", idempotent: true,
    summary: "Monthly billing of a database and its projects",
    access: "DB_ADMIN on database {databaseId}, or org admin or parent org admin of its owning organization",
  }),
  GetDatabaseProjects: route({
    id: "E29", operationId: "GetDatabaseProjects", method: "GET", path: "/v1/databases/{databaseId}/projects",
    params: z.object({ ...databaseId, ...p.paging }), data: z.array(s.Project), envelope: "list", pages: "list", idempotent: true,
    summary: "List a database's projects",
    access: "DB_ADMIN on database {databaseId}, or org admin or parent org admin of its owning organization",
  }),
  GetDatabaseSize: route({
    id: "E30", operationId: "GetDatabaseSize", method: "GET", path: "/v1/databases/{databaseId}/size",
    params: z.object({ ...databaseId }), data: s.DatabaseSize, envelope: "single", pages: "none", idempotent: true,
    summary: "Document counts and sizes of a database",
    access: "DB_ADMIN on database {databaseId}, or org admin or parent org admin of its owning organization",
  }),
  PostDatabaseDataset: route({
    id: "up1", operationId: "PostDatabaseDataset", method: "POST", path: "/v1/databases/{databaseId}/datasets",
    params: z.object({ ...databaseId }), body: s.CreateDatasetRequest, data: s.Dataset, envelope: "single", pages: "none",
    idempotent: false, // each call creates a dataset
    summary: "Create a dataset (a processing configuration for uploads)",
    access: "DB_UPLOAD or DB_ADMIN on database {databaseId}, or org admin of its owning organization when the database allows org admin access (orgAdminAccess)",
  }),
  PostDatasetFile: route({
    id: "up2", operationId: "PostDatasetFile", method: "POST", path: "/v1/databases/{databaseId}/datasets/{datasetId}/sourceFiles",
    params: z.object({ ...databaseId, datasetId: p.id }), body: s.CreateSourceFileRequest, data: s.SourceFile,
    envelope: "single", pages: "none", idempotent: false, // each call creates a source file
    summary: "Create a source file in a dataset, to upload in parts or fetch from a direct link",
    access: "DB_UPLOAD or DB_ADMIN on database {databaseId}, or org admin of its owning organization when the database allows org admin access (orgAdminAccess)",
  }),
  PostSourceFilePart: route({
    id: "up3", operationId: "PostSourceFilePart", method: "POST", path: "/v1/databases/{databaseId}/sourceFiles/{sourceFileId}/parts/{partNumber}",
    params: z.object({ ...databaseId, sourceFileId: p.id, partNumber: p.partNumber }), data: s.PartUrl,
    envelope: "single", pages: "none", idempotent: true, // asking again just gives a fresh URL for the same part
    summary: "Get a pre-authenticated URL to upload one part",
    access: "DB_UPLOAD or DB_ADMIN on database {databaseId}, or org admin of its owning organization when the database allows org admin access (orgAdminAccess)",
  }),
  GetSourceFileParts: route({
    id: "up4", operationId: "GetSourceFileParts", method: "GET", path: "/v1/databases/{databaseId}/sourceFiles/{sourceFileId}/parts",
    params: z.object({ ...databaseId, sourceFileId: p.id }), data: z.array(s.UploadedPart), envelope: "single",
    pages: "none", idempotent: true,
    summary: "List the parts received so far, to resume an upload",
    access: "DB_UPLOAD or DB_ADMIN on database {databaseId}, or org admin of its owning organization when the database allows org admin access (orgAdminAccess)",
  }),
  PostSourceFile: route({
    id: "up5", operationId: "PostSourceFile", method: "POST", path: "/v1/databases/{databaseId}/sourceFiles/{sourceFileId}/complete",
    params: z.object({ ...databaseId, sourceFileId: p.id }), body: s.CompleteUploadRequest, data: s.SourceFile,
    envelope: "single", pages: "none", idempotent: false,
    summary: "Complete an upload: assemble the parts and start processing",
    access: "DB_UPLOAD or DB_ADMIN on database {databaseId}, or org admin of its owning organization when the database allows org admin access (orgAdminAccess)",
  }),
} as const;

/** The route table's type. */
export type Routes = typeof routes;
// The operation types, generated from this table into zod-free TypeScript (types.ts).
export type { BodyOf, DataOf, ItemOf, OperationId, ParamsOf } from "./types";

/** All routes as a list, in the contract's order. */
export const routeList: readonly RouteDef[] = Object.values(routes);
