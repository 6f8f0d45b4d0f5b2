/**
 * Data sources: plain functions in the Pulumi style. Each `getX(args, opts?)` returns a Promise;
 * each `getXOutput(args, opts?)` takes pulumi Inputs and returns a pulumi Output. Credentials
 * come from `opts.client`, `opts.settings`, the `reviewadmin:*` stack config, or the
 * REVIEWADMIN_API_KEY / REVIEWADMIN_BASE_URL environment variables. They work in a Pulumi
 * program and in a plain Node script.
 *
 * Every name is listed: each one is public (provider/index.ts re-exports this list), and a helper
 * a data source shares with no one stays in its module.
 */
export {
  settingsFromPulumiConfig,
  type DataSourceFn,
  type DataSourceOptions,
  type DataSourceOutputOptions,
  type OutputArgs,
  type OutputFn,
  type Plain,
} from "./dataSource";
export { DataSourceError, requiredRole } from "./dataSourceError";
export type { NameFilter } from "./argTypes.generated";
export {
  getCurrentUser,
  getCurrentUserOutput,
  getOrganization,
  getOrganizationOutput,
  getOrganizations,
  getOrganizationsOutput,
  type GetCurrentUserArgs,
  type GetCurrentUserResult,
  type GetOrganizationArgs,
  type GetOrganizationResult,
  type GetOrganizationsArgs,
  type GetOrganizationsResult,
} from "./account";
export {
  getDatabase,
  getDatabaseOutput,
  getDatabaseSize,
  getDatabaseSizeOutput,
  getDatabases,
  getDatabasesOutput,
  getOrganizationDatabases,
  getOrganizationDatabasesOutput,
  type DatabaseFilter,
  type GetDatabaseArgs,
  type GetDatabaseResult,
  type GetDatabaseSizeArgs,
  type GetDatabaseSizeResult,
  type GetDatabasesArgs,
  type GetDatabasesResult,
  type GetOrganizationDatabasesArgs,
  type GetOrganizationDatabasesResult,
} from "./databases";
export {
  getDatabaseProjects,
  getDatabaseProjectsOutput,
  getOrganizationProjects,
  getOrganizationProjectsOutput,
  getProjects,
  getProjectsOutput,
  type GetDatabaseProjectsArgs,
  type GetDatabaseProjectsResult,
  type GetOrganizationProjectsArgs,
  type GetOrganizationProjectsResult,
  type GetProjectsArgs,
  type GetProjectsResult,
  type ProjectFilter,
} from "./projects";
export {
  getDatabaseUser,
  getDatabaseUserOutput,
  getDatabaseUsers,
  getDatabaseUsersOutput,
  getOrganizationInvitations,
  getOrganizationInvitationsOutput,
  getOrganizationMember,
  getOrganizationMemberOutput,
  getOrganizationMembers,
  getOrganizationMembersOutput,
  getOrganizationUserIdentifiers,
  getOrganizationUserIdentifiersOutput,
  type GetDatabaseUserArgs,
  type GetDatabaseUserResult,
  type GetDatabaseUsersArgs,
  type GetDatabaseUsersResult,
  type GetOrganizationInvitationsArgs,
  type GetOrganizationInvitationsResult,
  type GetOrganizationMemberArgs,
  type GetOrganizationMemberResult,
  type GetOrganizationMembersArgs,
  type GetOrganizationMembersResult,
  type GetOrganizationUserIdentifiersArgs,
  type GetOrganizationUserIdentifiersResult,
  type InvitationWithStatus,
  type ListedInvitationStatus,
  type MemberFilter,
} from "./members";
export {
  getDatabaseBilling,
  getDatabaseBillingOutput,
  getOrganizationBilling,
  getOrganizationBillingOutput,
  getParentOrganizationBilling,
  getParentOrganizationBillingOutput,
  type GetBillingSummaryArgs,
  type GetDatabaseBillingArgs,
  type GetDatabaseBillingResult,
  type GetOrganizationBillingArgs,
  type GetOrganizationBillingResult,
  type GetParentBillingSummaryArgs,
  type GetParentOrganizationBillingArgs,
  type GetParentOrganizationBillingResult,
  type MonthArgs,
  type YearMonth,
} from "./billing";
export {
  billingSummaryToCsv,
  getBillingSummary,
  getBillingSummaryOutput,
  getParentBillingSummary,
  getParentBillingSummaryOutput,
  type ActiveSuspended,
  type BillableGb,
  type BillingMonthTotal,
  type BillingSummary,
  type BillingSummaryProject,
  type BillingSummaryRow,
  type ParentBillingSummary,
  type ParentSummaryMonth,
  type ParentSummaryOrganization,
  type PeakFinal,
} from "./billingSummary";
export {
  getActivityEvents,
  getActivityEventsOutput,
  type ActivityEventsMode,
  type GetActivityEventsArgs,
  type GetActivityEventsResult,
  type TimeInput,
} from "./events";
export {
  getAccessMatrix,
  getAccessMatrixOutput,
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
  type GetAccessMatrixArgs,
} from "./accessReview";
export {
  getStalePrivilegedPeople,
  getStalePrivilegedPeopleOutput,
  type GetStalePrivilegedPeopleArgs,
  type StalePrivilegedPeople,
  type StalePrivilegedPerson,
} from "./stalePrivileged";
export {
  getWallsFromFile,
  getWallsFromFileOutput,
  type FileWall,
  type GetWallsFromFileArgs,
  type GetWallsFromFileResult,
  type WallFileProblem,
} from "./wallsFromFile";
