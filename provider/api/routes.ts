/**
 * The route table: every operation of ../shared/contract.md as data. The client builds every URL
 * from it and the emulator routes every request with it; nothing else in the project writes a
 * path. A user whose live service differs changes one line here.
 */
import { z } from "zod";
import * as p from "./params";
import * as s from "./schemas";

/** How a successful body wraps its data. `none`: the success body is not shown by the spec. */
export type Envelope = "single" | "list" | "none";
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One operation of the API. */
export interface RouteDef {
  /** The contract's number: E1..E30, up1..up5. */
  readonly id: string;
  /** The operation id (GetDatabases, ...), also the key of `routes`. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Path template relative to the base URL; `{name}` segments are path parameters. */
  readonly path: string;
  /** Path and query parameters together; names in `path` are path parameters, the rest query. */
  readonly params: z.ZodObject;
  /** JSON body schema, or "multipart" for E5's CSV upload. */
  readonly body?: z.ZodType | "multipart";
  /** Schema of the `data` member of a successful response. */
  readonly data: z.ZodType;
  readonly envelope: Envelope;
  /** Follows `after`/`limit` pages with `links.next`. */
  readonly paged: boolean;
  /** Safe to repeat after a 5xx or a dropped connection. */
  readonly idempotent: boolean;
  /** One line for humans: what the operation does. */
  readonly summary: string;
}

function route<const R extends RouteDef>(r: R): R {
  return r;
}

const orgId = { orgId: p.id };
const databaseId = { databaseId: p.id };

/** Every operation, keyed by operation id. */
export const routes = {
  GetDatabases: route({
    id: "E1", operationId: "GetDatabases", method: "GET", path: "/v1/databases",
    params: z.object({ ...p.paging }), data: z.array(s.Database), envelope: "list", paged: true, idempotent: true,
    summary: "List the databases the caller administers",
  }),
  GetCurrentUser: route({
    id: "E2", operationId: "GetCurrentUser", method: "GET", path: "/v1/users/me",
    params: z.object({}), data: s.User, envelope: "single", paged: false, idempotent: true,
    summary: "Read the user behind the API key",
  }),
  GetOrganizations: route({
    id: "E3", operationId: "GetOrganizations", method: "GET", path: "/v1/organizations",
    params: z.object({ ...p.paging }), data: z.array(s.Organization), envelope: "list", paged: true, idempotent: true,
    summary: "List the caller's organizations and their sub-organizations",
  }),
  GetProjects: route({
    id: "E4", operationId: "GetProjects", method: "GET", path: "/v1/projects",
    params: z.object({ ...p.paging }), data: z.array(s.Project), envelope: "list", paged: true, idempotent: true,
    summary: "List the projects the caller can access",
  }),
  PostDirectoryCustodians: route({
    id: "E5", operationId: "PostDirectoryCustodians", method: "POST", path: "/v1/directories/{directoryId}/custodians",
    params: z.object({ directoryId: p.id }), body: "multipart", data: s.CustodianSyncResult, envelope: "single",
    paged: false, idempotent: true, // the sync overwrites: sending the same CSV twice gives the same directory
    summary: "Sync a legal-hold custodian directory from a CSV file",
  }),
  GetOrganization: route({
    id: "E6", operationId: "GetOrganization", method: "GET", path: "/v1/organizations/{orgId}",
    params: z.object({ ...orgId }), data: s.Organization, envelope: "single", paged: false, idempotent: true,
    summary: "Read an organization",
  }),
  GetOrganizationBilling: route({
    id: "E7", operationId: "GetOrganizationBilling", method: "GET", path: "/v1/organizations/{orgId}/billing",
    params: z.object({ ...orgId, year: p.year, month: p.month, ...p.paging }), data: z.array(s.DatabaseBilling),
    envelope: "list", paged: true, idempotent: true,
    summary: "Monthly billing of the organization's databases",
  }),
  GetParentOrganizationBilling: route({
    id: "E8", operationId: "GetParentOrganizationBilling", method: "GET", path: "/v1/organizations/{orgId}/billing/aggregate",
    params: z.object({ ...orgId, year: p.year, month: p.month }), data: s.ParentBilling, envelope: "single",
    paged: false, idempotent: true,
    summary: "Monthly billing aggregated over a parent organization and its sub-organizations",
  }),
  GetOrganizationDatabases: route({
    id: "E9", operationId: "GetOrganizationDatabases", method: "GET", path: "/v1/organizations/{orgId}/databases",
    params: z.object({ ...orgId, ...p.paging }), data: z.array(s.Database), envelope: "list", paged: true, idempotent: true,
    summary: "List an organization's databases",
  }),
  GetOrganizationEvents: route({
    id: "E10", operationId: "GetOrganizationEvents", method: "GET", path: "/v1/organizations/{orgId}/events",
    params: z
      .object({ ...orgId, begin: p.unixMs, end: p.unixMs, limit: p.eventLimit })
      .refine((v) => v.end > v.begin, { message: "must be later than begin", path: ["end"] }),
    data: z.array(s.ActivityEvent), envelope: "list", paged: true, idempotent: true,
    summary: "Activity events in a time range (begin inclusive, end exclusive)",
  }),
  GetOrganizationEventsAfter: route({
    id: "E11", operationId: "GetOrganizationEventsAfter", method: "GET", path: "/v1/organizations/{orgId}/events/after/{eventId}",
    params: z.object({ ...orgId, eventId: p.after.unwrap(), limit: p.eventLimit }), data: z.array(s.ActivityEvent),
    envelope: "list", paged: true, idempotent: true,
    summary: "Activity events after an event id",
  }),
  GetRecentOrganizationEvents: route({
    id: "E12", operationId: "GetRecentOrganizationEvents", method: "GET", path: "/v1/organizations/{orgId}/events/recent",
    params: z.object({ ...orgId, limit: p.eventLimit }), data: s.EventList, envelope: "single", paged: false, idempotent: true,
    summary: "The most recent activity events",
  }),
  DeleteOrganizationInvitation: route({
    id: "E13", operationId: "DeleteOrganizationInvitation", method: "DELETE", path: "/v1/organizations/{orgId}/invitations",
    params: z.object({ ...orgId }), body: s.EmailRequest, data: z.unknown(), envelope: "none", paged: false, idempotent: true,
    summary: "Delete a pending invitation",
  }),
  GetOrganizationInvitations: route({
    id: "E14", operationId: "GetOrganizationInvitations", method: "GET", path: "/v1/organizations/{orgId}/invitations",
    params: z.object({ ...orgId }), data: s.InvitationList, envelope: "single", paged: false, idempotent: true,
    summary: "List pending and expired invitations",
  }),
  PostOrganizationInvitationResend: route({
    id: "E15", operationId: "PostOrganizationInvitationResend", method: "POST", path: "/v1/organizations/{orgId}/invitations/resend",
    params: z.object({ ...orgId }), body: s.EmailRequest, data: s.Invitation, envelope: "single", paged: false,
    idempotent: false, // each call sends an email
    summary: "Re-send an invitation and reset its expiration",
  }),
  GetOrganizationProjects: route({
    id: "E16", operationId: "GetOrganizationProjects", method: "GET", path: "/v1/organizations/{orgId}/projects",
    params: z.object({ ...orgId, ...p.paging }), data: z.array(s.Project), envelope: "list", paged: true, idempotent: true,
    summary: "List an organization's projects",
  }),
  GetOrganizationUserIdentifiers: route({
    id: "E17", operationId: "GetOrganizationUserIdentifiers", method: "GET", path: "/v1/organizations/{orgId}/userIdentifiers",
    params: z.object({ ...orgId, ...p.paging }), data: z.array(s.UserIdentifier), envelope: "list", paged: true, idempotent: true,
    summary: "List the user identifiers in use in an organization",
  }),
  GetOrganizationUsers: route({
    id: "E18", operationId: "GetOrganizationUsers", method: "GET", path: "/v1/organizations/{orgId}/users",
    params: z.object({ ...orgId, ...p.paging }), data: z.array(s.Member), envelope: "list", paged: true, idempotent: true,
    summary: "List an organization's members with their permissions",
  }),
  PostOrganizationUsers: route({
    id: "E19", operationId: "PostOrganizationUsers", method: "POST", path: "/v1/organizations/{orgId}/users",
    params: z.object({ ...orgId }), body: s.AddUsersRequest, data: s.AddUsersResult, envelope: "single", paged: false,
    idempotent: true, // adding a member twice is not an error, and a pending invitation is answered again
    summary: "Add members (existing users) or invite people (new emails)",
  }),
  DeleteOrganizationUser: route({
    id: "E20", operationId: "DeleteOrganizationUser", method: "DELETE", path: "/v1/organizations/{orgId}/users/{userId}",
    params: z.object({ ...orgId, userId: p.id }), data: z.unknown(), envelope: "none", paged: false, idempotent: true,
    summary: "Remove a member from the organization and its projects",
  }),
  GetOrganizationUser: route({
    id: "E21", operationId: "GetOrganizationUser", method: "GET", path: "/v1/organizations/{orgId}/users/{userId}",
    params: z.object({ ...orgId, userId: p.id }), data: s.Member, envelope: "single", paged: false, idempotent: true,
    summary: "Read one member",
  }),
  PatchOrganizationUser: route({
    id: "E22", operationId: "PatchOrganizationUser", method: "PATCH", path: "/v1/organizations/{orgId}/users/{userId}",
    params: z.object({ ...orgId, userId: p.id }), body: s.UpdateMemberRequest, data: s.Member, envelope: "single",
    paged: false, idempotent: true, // sets fields to given values
    summary: "Update a member's permissions or identifiers (fields left out stay as they are)",
  }),
  GetDatabaseUsers: route({
    id: "E23", operationId: "GetDatabaseUsers", method: "GET", path: "/v1/databases/{databaseId}/users",
    params: z.object({ ...databaseId, ...p.paging }), data: z.array(s.DatabaseUser), envelope: "list", paged: true, idempotent: true,
    summary: "List the users with permissions on a database",
  }),
  DeleteDatabaseUser: route({
    id: "E24", operationId: "DeleteDatabaseUser", method: "DELETE", path: "/v1/databases/{databaseId}/users/{userId}",
    params: z.object({ ...databaseId, userId: p.id }), data: z.unknown(), envelope: "none", paged: false, idempotent: true,
    summary: "Remove a user's database permissions",
  }),
  GetDatabaseUser: route({
    id: "E25", operationId: "GetDatabaseUser", method: "GET", path: "/v1/databases/{databaseId}/users/{userId}",
    params: z.object({ ...databaseId, userId: p.id }), data: s.DatabaseUser, envelope: "single", paged: false, idempotent: true,
    summary: "Read one user's database permissions",
  }),
  PutDatabaseUser: route({
    id: "E26", operationId: "PutDatabaseUser", method: "PUT", path: "/v1/databases/{databaseId}/users/{userId}",
    params: z.object({ ...databaseId, userId: p.id }), body: s.SetDatabaseUserRequest, data: s.DatabaseUser,
    envelope: "single", paged: false, idempotent: true,
    summary: "Set (overwrite) a user's database permissions",
  }),
  GetDatabase: route({
    id: "E27", operationId: "GetDatabase", method: "GET", path: "/v1/databases/{databaseId}",
    params: z.object({ ...databaseId }), data: s.Database, envelope: "single", paged: false, idempotent: true,
    summary: "Read a database",
  }),
  GetDatabaseBilling: route({
    id: "E28", operationId: "GetDatabaseBilling", method: "GET", path: "/v1/databases/{databaseId}/billing",
    params: z.object({ ...databaseId, year: p.year, month: p.month }), data: s.DatabaseBilling, envelope: "single",
    paged: false, idempotent: true,
    summary: "Monthly billing of a database and its projects",
  }),
  GetDatabaseProjects: route({
    id: "E29", operationId: "GetDatabaseProjects", method: "GET", path: "/v1/databases/{databaseId}/projects",
    params: z.object({ ...databaseId, ...p.paging }), data: z.array(s.Project), envelope: "list", paged: true, idempotent: true,
    summary: "List a database's projects",
  }),
  GetDatabaseSize: route({
    id: "E30", operationId: "GetDatabaseSize", method: "GET", path: "/v1/databases/{databaseId}/size",
    params: z.object({ ...databaseId }), data: s.DatabaseSize, envelope: "single", paged: false, idempotent: true,
    summary: "Document counts and sizes of a database",
  }),
  PostDatabaseDataset: route({
    id: "up1", operationId: "PostDatabaseDataset", method: "POST", path: "/v1/databases/{databaseId}/datasets",
    params: z.object({ ...databaseId }), body: s.CreateDatasetRequest, data: s.Dataset, envelope: "single", paged: false,
    idempotent: false, // each call creates a dataset
    summary: "Create a dataset (a processing configuration for uploads)",
  }),
  PostDatasetFile: route({
    id: "up2", operationId: "PostDatasetFile", method: "POST", path: "/v1/databases/{databaseId}/datasets/{datasetId}/sourceFiles",
    params: z.object({ ...databaseId, datasetId: p.id }), body: s.CreateSourceFileRequest, data: s.SourceFile,
    envelope: "single", paged: false, idempotent: false, // each call creates a source file
    summary: "Create a source file in a dataset, to upload in parts or fetch from a direct link",
  }),
  PostSourceFilePart: route({
    id: "up3", operationId: "PostSourceFilePart", method: "POST", path: "/v1/databases/{databaseId}/sourceFiles/{sourceFileId}/parts/{partNumber}",
    params: z.object({ ...databaseId, sourceFileId: p.id, partNumber: p.partNumber }), data: s.PartUrl,
    envelope: "single", paged: false, idempotent: true, // asking again just gives a fresh URL for the same part
    summary: "Get a pre-authenticated URL to upload one part",
  }),
  GetSourceFileParts: route({
    id: "up4", operationId: "GetSourceFileParts", method: "GET", path: "/v1/databases/{databaseId}/sourceFiles/{sourceFileId}/parts",
    params: z.object({ ...databaseId, sourceFileId: p.id }), data: z.array(s.UploadedPart), envelope: "single",
    paged: false, idempotent: true,
    summary: "List the parts received so far, to resume an upload",
  }),
  PostSourceFile: route({
    id: "up5", operationId: "PostSourceFile", method: "POST", path: "/v1/databases/{databaseId}/sourceFiles/{sourceFileId}/complete",
    params: z.object({ ...databaseId, sourceFileId: p.id }), body: s.CompleteUploadRequest, data: s.SourceFile,
    envelope: "single", paged: false, idempotent: false,
    summary: "Complete an upload: assemble the parts and start processing",
  }),
} as const;

/** The route table's type. */
export type Routes = typeof routes;
/** An operation id. */
export type OperationId = keyof Routes;
/** Parameters (path and query) an operation takes, as a caller writes them. */
export type ParamsOf<K extends OperationId> = z.input<Routes[K]["params"]>;
/** The JSON body an operation takes (never for GET, multipart for E5). */
export type BodyOf<K extends OperationId> = Routes[K] extends { body: infer B }
  ? B extends z.ZodType ? z.input<B> : B extends "multipart" ? FormData : never
  : never;
/** The `data` a successful response carries. */
export type DataOf<K extends OperationId> = z.output<Routes[K]["data"]>;
/** The element type of a paged list operation. */
export type ItemOf<K extends OperationId> = DataOf<K> extends readonly (infer T)[] ? T : never;

/** All routes as a list, in the contract's order. */
export const routeList: readonly RouteDef[] = Object.values(routes);

/** Names of the `{name}` segments of a path template. */
export function pathParamNames(route: RouteDef): string[] {
  return [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}

/** Fills a path template and appends the remaining defined params as the query string. */
export function buildPath(route: RouteDef, params: Record<string, unknown>): string {
  const used = new Set<string>();
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    used.add(name);
    return encodeURIComponent(String(params[name]));
  });
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (!used.has(k) && v !== undefined && v !== null) query.set(k, String(v));
  }
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Compiled matchers, most specific first so /events/recent wins over /events/after/{id}. */
const matchers = routeList
  .map((r) => ({
    route: r,
    names: pathParamNames(r),
    re: new RegExp("^" + r.path.replace(/\{\w+\}/g, "([^/]+)") + "/?$"),
    literalLength: r.path.replace(/\{\w+\}/g, "").length,
  }))
  .sort((a, b) => b.literalLength - a.literalLength);

/** Finds the route for a method and path (without query); path parameters come back as strings. */
export function matchRoute(method: string, pathname: string): { route: RouteDef; pathParams: Record<string, string> } | undefined {
  for (const m of matchers) {
    if (m.route.method !== method) continue;
    const hit = m.re.exec(pathname);
    if (!hit) continue;
    const pathParams: Record<string, string> = {};
    m.names.forEach((n, i) => (pathParams[n] = decodeURIComponent(hit[i + 1])));
    return { route: m.route, pathParams };
  }
  return undefined;
}

/** True when some route (of any method) serves this path: lets a server answer 405 rather than 404. */
export function pathIsKnown(pathname: string): boolean {
  return matchers.some((m) => m.re.test(pathname));
}
