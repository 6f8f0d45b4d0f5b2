/**
 * pulumi-reviewadmin: access as code for the review platform's administration API. This is the
 * whole public surface: every name exported here is a promise kept across minor versions (see
 * CHANGELOG.md); anything else in the package is internal.
 */
// First: on an old Node, one line saying which Node is needed, before undici loads.
import "../contract/requireNode";

// Resources
export { OrgMember, type OrgMemberArgs, type MemberStatus } from "./resources/orgMember";
export { OrgMemberPermissions, type OrgMemberPermissionsArgs } from "./resources/orgMemberPermissions";
export { UserIdentifiers, type UserIdentifiersArgs, type UserIdentifierInput } from "./resources/userIdentifiers";
export { DatabaseUserPermissions, type DatabaseUserPermissionsArgs } from "./resources/databaseUserPermissions";
export { Invitation, type InvitationArgs, type InvitationStatus } from "./resources/invitation";
export {
  OrganizationMembers,
  type OrganizationMembersArgs,
  type RosterMemberInput,
  type LivePerson,
} from "./resources/organizationMembers";
export { DatabaseUsers, type DatabaseUsersArgs, type LiveUser } from "./resources/databaseUsers";
export type { RosterMode } from "./resources/support/rosterMode";
export { CustodianDirectorySync, type CustodianDirectorySyncArgs } from "./resources/custodianDirectorySync";
export { Dataset, type DatasetArgs } from "./resources/dataset";
export { SourceFile, type SourceFileArgs } from "./resources/sourceFile";

// Data sources
export * from "./data";

// Native upload for scripts
export * from "./upload";

// The custodian CSV format
export {
  CUSTODIAN_COLUMNS,
  CustodianCsvError,
  MAX_CSV_BYTES,
  parseCustodianCsv,
  renderCustodianCsv,
  type Custodian,
  type CustodianInput,
  type ParsedCustodians,
} from "../contract/custodianCsv";
// Exports of other systems read as custodian CSVs (CustodianDirectorySync's preset and columns)
export { CUSTODIAN_PRESETS, type CustodianPreset } from "./custodians/presets";
export {
  DATE_FORMATS,
  mapCustodianExport,
  type ColumnMapping,
  type DateFormat,
  type ExportMapping,
  type MappingReport,
} from "./custodians/mapping";

// The API's entities and operations, as types (for client.call and data-source results)
export type {
  ActivityEvent,
  Database,
  DatabaseBilling,
  DatabasePermission,
  DatabaseSize,
  DatabaseUser,
  Invitation as InvitationEntity,
  Member,
  MonthStatus,
  Organization,
  OrganizationPermission,
  ParentBilling,
  Project,
  ProjectBilling,
  Size,
  SizeBreakdown,
  SizeSet,
  User,
  UserIdentifier,
  OperationId,
  ParamsOf,
  BodyOf,
  DataOf,
} from "../contract/types";
export { ParameterError } from "../contract/parameterError";

// The HTTP client and its errors
export {
  ReviewAdminClient,
  getClient,
  ApiError,
  ClientClosedError,
  ClientConfigError,
  InsecureUrlError,
  NetworkError,
  ResponseValidationError,
  ReviewAdminError,
  TimeoutError,
  type ClientOptions,
  type ClientStats,
  type CallOptions,
  type PageItemOf,
  type RequestContext,
} from "./client";

// Settings and failures
export { resolveSettings, currentClient, type Settings } from "./settings";
export { ResourceError } from "./failures";
