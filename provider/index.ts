/**
 * pulumi-reviewadmin: access as code for the review platform's administration API.
 * Resources, data sources, the API model and the HTTP client.
 */
export * from "../contract";
export * from "./client";
export { resolveSettings, currentClient, type Settings } from "./settings";
export { OrgMember, type OrgMemberArgs, type MemberStatus } from "./resources/orgMember";
export { OrgMemberPermissions, type OrgMemberPermissionsArgs } from "./resources/orgMemberPermissions";
export { UserIdentifiers, type UserIdentifiersArgs, type UserIdentifierInput } from "./resources/userIdentifiers";
export { DatabaseUserPermissions, type DatabaseUserPermissionsArgs } from "./resources/databaseUserPermissions";
export { Invitation, type InvitationArgs, type InvitationStatus } from "./resources/invitation";
export { CustodianDirectorySync, type CustodianDirectorySyncArgs } from "./resources/custodianDirectorySync";
export * from "../contract/custodianCsv";
export { Dataset, type DatasetArgs } from "./resources/dataset";
export { SourceFile, type SourceFileArgs } from "./resources/sourceFile";
export * from "./upload";
export { OrganizationMembers, type OrganizationMembersArgs, type RosterMemberInput } from "./resources/organizationMembers";
export { DatabaseUsers, type DatabaseUsersArgs } from "./resources/databaseUsers";
export type { RosterMode } from "./resources/roster";
export * from "./data";
