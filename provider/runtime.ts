/**
 * The code the dynamic-provider plugin runs. The serialized provider (resources/serialized.ts)
 * requires this module by package name and forwards each call to the implementation of its kind.
 * Loaded once per plugin process, so its caches and the client's token bucket are shared by every
 * resource of the run.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ResourceImpl } from "./resources/base";
import { custodianDirectorySyncImpl } from "./resources/custodianDirectorySync";
import { datasetImpl } from "./resources/dataset";
import { databaseUserPermissionsImpl } from "./resources/databaseUserPermissions";
import { databaseUsersImpl } from "./resources/databaseUsers";
import { organizationMembersImpl } from "./resources/organizationMembers";
import { invitationImpl } from "./resources/invitation";
import { orgMemberImpl } from "./resources/orgMember";
import { orgMemberPermissionsImpl } from "./resources/orgMemberPermissions";
import { sourceFileImpl } from "./resources/sourceFile";
import { userIdentifiersImpl } from "./resources/userIdentifiers";
import { resetRunCaches } from "./resources/shared";
import { CONFIG_NAMESPACE, setConfiguredSettings, settingsFromConfig } from "./settings";

const implementations: Record<string, ResourceImpl> = {
  OrgMember: orgMemberImpl,
  OrgMemberPermissions: orgMemberPermissionsImpl,
  UserIdentifiers: userIdentifiersImpl,
  DatabaseUserPermissions: databaseUserPermissionsImpl,
  Invitation: invitationImpl,
  CustodianDirectorySync: custodianDirectorySyncImpl,
  OrganizationMembers: organizationMembersImpl,
  DatabaseUsers: databaseUsersImpl,
  Dataset: datasetImpl,
  SourceFile: sourceFileImpl,
};

/** Takes the stack's `reviewadmin:*` config (secrets already decrypted) and starts a new run's caches. */
export function configure(req: pulumi.dynamic.ConfigureRequest): void {
  setConfiguredSettings(settingsFromConfig((key) => req.config.get(`${CONFIG_NAMESPACE}:${key}`)));
  resetRunCaches();
}

/** The implementation of one resource kind; throws for a kind this version does not know. */
export function provider(kind: string): ResourceImpl {
  const impl = implementations[kind];
  if (!impl) {
    throw new Error(`pulumi-reviewadmin: this version has no resource kind '${kind}' (state written by a newer version?)`);
  }
  return impl;
}
