/**
 * pulumi-reviewadmin: access as code for the review platform's administration API. This is the
 * whole public surface: every name exported here is a promise kept across minor versions (see
 * CHANGELOG.md); anything else in the package is internal. Every name is listed, never `export *`:
 * a helper exported for a sibling module must not become a promise by accident.
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
export type { RosterMode } from "./access/rosterMode";
export { CustodianDirectorySync, type CustodianDirectorySyncArgs } from "./resources/custodianDirectorySync";
export { Dataset, type DatasetArgs } from "./resources/dataset";
export { SourceFile, type SourceFileArgs } from "./resources/sourceFile";
export {
  EthicalWall,
  type EthicalWallArgs,
  type OnBreach,
  type WallBreach,
  type WallException,
  type WallExceptionArgs,
  type WallRemoval,
  type WallUnenforceable,
} from "./resources/ethicalWall";
// The same resources on the plugin face (docs/plugin.md): `new reviewadmin.plugin.OrgMember(...)`.
export { plugin, type PluginClass } from "./plugin/classes";

// Data sources
export {
  billingSummaryToCsv,
  DataSourceError,
  getAccessMatrix,
  getAccessMatrixOutput,
  getActivityEvents,
  getActivityEventsOutput,
  getBillingSummary,
  getBillingSummaryOutput,
  getCurrentUser,
  getCurrentUserOutput,
  getDatabase,
  getDatabaseBilling,
  getDatabaseBillingOutput,
  getDatabaseOutput,
  getDatabaseProjects,
  getDatabaseProjectsOutput,
  getDatabases,
  getDatabaseSize,
  getDatabaseSizeOutput,
  getDatabasesOutput,
  getDatabaseUser,
  getDatabaseUserOutput,
  getDatabaseUsers,
  getDatabaseUsersOutput,
  getOrganization,
  getOrganizationBilling,
  getOrganizationBillingOutput,
  getOrganizationDatabases,
  getOrganizationDatabasesOutput,
  getOrganizationInvitations,
  getOrganizationInvitationsOutput,
  getOrganizationMember,
  getOrganizationMemberOutput,
  getOrganizationMembers,
  getOrganizationMembersOutput,
  getOrganizationOutput,
  getOrganizationProjects,
  getOrganizationProjectsOutput,
  getOrganizations,
  getOrganizationsOutput,
  getOrganizationUserIdentifiers,
  getOrganizationUserIdentifiersOutput,
  getParentBillingSummary,
  getParentBillingSummaryOutput,
  getParentOrganizationBilling,
  getParentOrganizationBillingOutput,
  getProjects,
  getProjectsOutput,
  getStalePrivilegedPeople,
  getStalePrivilegedPeopleOutput,
  getWallsFromFile,
  getWallsFromFileOutput,
  requiredRole,
  settingsFromPulumiConfig,
  toCsv,
  toMarkdown,
  type AccessDatabase,
  type AccessDatabaseUser,
  type AccessInvitation,
  type AccessMatrix,
  type AccessMember,
  type AccessSummary,
  type AccessWall,
  type AccessWallFinding,
  type FileWall,
  type GetWallsFromFileArgs,
  type GetWallsFromFileResult,
  type WallFileProblem,
  type ActiveSuspended,
  type ActivityEventsMode,
  type BillableGb,
  type BillingMonthTotal,
  type BillingSummary,
  type BillingSummaryProject,
  type BillingSummaryRow,
  type DatabaseFilter,
  type DataSourceFn,
  type DataSourceOptions,
  type DataSourceOutputOptions,
  type GetAccessMatrixArgs,
  type GetActivityEventsArgs,
  type GetActivityEventsResult,
  type GetBillingSummaryArgs,
  type GetCurrentUserArgs,
  type GetCurrentUserResult,
  type GetDatabaseArgs,
  type GetDatabaseBillingArgs,
  type GetDatabaseBillingResult,
  type GetDatabaseProjectsArgs,
  type GetDatabaseProjectsResult,
  type GetDatabaseResult,
  type GetDatabasesArgs,
  type GetDatabaseSizeArgs,
  type GetDatabaseSizeResult,
  type GetDatabasesResult,
  type GetDatabaseUserArgs,
  type GetDatabaseUserResult,
  type GetDatabaseUsersArgs,
  type GetDatabaseUsersResult,
  type GetOrganizationArgs,
  type GetOrganizationBillingArgs,
  type GetOrganizationBillingResult,
  type GetOrganizationDatabasesArgs,
  type GetOrganizationDatabasesResult,
  type GetOrganizationInvitationsArgs,
  type GetOrganizationInvitationsResult,
  type GetOrganizationMemberArgs,
  type GetOrganizationMemberResult,
  type GetOrganizationMembersArgs,
  type GetOrganizationMembersResult,
  type GetOrganizationProjectsArgs,
  type GetOrganizationProjectsResult,
  type GetOrganizationResult,
  type GetOrganizationsArgs,
  type GetOrganizationsResult,
  type GetOrganizationUserIdentifiersArgs,
  type GetOrganizationUserIdentifiersResult,
  type GetParentBillingSummaryArgs,
  type GetParentOrganizationBillingArgs,
  type GetParentOrganizationBillingResult,
  type GetProjectsArgs,
  type GetProjectsResult,
  type GetStalePrivilegedPeopleArgs,
  type StalePrivilegedPeople,
  type StalePrivilegedPerson,
  type InvitationWithStatus,
  type ListedInvitationStatus,
  type MemberFilter,
  type MonthArgs,
  type NameFilter,
  type OutputArgs,
  type OutputFn,
  type ParentBillingSummary,
  type ParentSummaryMonth,
  type ParentSummaryOrganization,
  type PeakFinal,
  type Plain,
  type ProjectFilter,
  type TimeInput,
  type YearMonth,
} from "./data";

// Native upload for scripts
export {
  checkDirectLink,
  planParts,
  recommendedPartSize,
  sha1OfFile,
  uploadFile,
  UploadError,
  UPLOAD_RULES,
  type PartPlan,
  type UploadFileOptions,
  type UploadProgress,
  type UploadResult,
} from "./upload";

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
