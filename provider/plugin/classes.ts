/**
 * The plugin face's classes for TypeScript programs: `new reviewadmin.plugin.OrgMember(...)` takes
 * the same args and has the same outputs as `new reviewadmin.OrgMember(...)`, and registers the
 * plugin's type (`reviewadmin:index:OrgMember`), so a TypeScript program gets what the plugin face
 * gives (explicit providers with `{ provider }`, detailed diffs, import) without generating an SDK.
 * The program's Pulumi.yaml names the plugin (docs/plugin.md).
 */
import type * as pulumi from "@pulumi/pulumi";
import { custodianDirectorySync, type CustodianDirectorySync, type CustodianDirectorySyncArgs } from "../resources/custodianDirectorySync";
import {
  databaseUserPermissions,
  type DatabaseUserPermissions,
  type DatabaseUserPermissionsArgs,
} from "../resources/databaseUserPermissions";
import { databaseUsers, type DatabaseUsers, type DatabaseUsersArgs } from "../resources/databaseUsers";
import { dataset, type Dataset, type DatasetArgs } from "../resources/dataset";
import { ethicalWall, type EthicalWall, type EthicalWallArgs } from "../resources/ethicalWall";
import { invitation, type Invitation, type InvitationArgs } from "../resources/invitation";
import { orgMember, type OrgMember, type OrgMemberArgs } from "../resources/orgMember";
import { orgMemberPermissions, type OrgMemberPermissions, type OrgMemberPermissionsArgs } from "../resources/orgMemberPermissions";
import { organizationMembers, type OrganizationMembers, type OrganizationMembersArgs } from "../resources/organizationMembers";
import { sourceFile, type SourceFile, type SourceFileArgs } from "../resources/sourceFile";
import type { ResourceImplementation } from "../resources/support/implementation";
import { PluginFaceResource } from "../resources/support/resourceClass";
import { userIdentifiers, type UserIdentifiers, type UserIdentifiersArgs } from "../resources/userIdentifiers";

/** A plugin-face class: constructed like the dynamic class `R`, with its outputs. */
export type PluginClass<A, R> = new (name: string, args: A, opts?: pulumi.CustomResourceOptions) => R;

function pluginClass<A, R>(impl: ResourceImplementation, defaults: pulumi.CustomResourceOptions = {}): PluginClass<A, R> {
  const definition = impl.definition;
  const cls = class extends PluginFaceResource {
    constructor(name: string, args: A, opts?: pulumi.CustomResourceOptions) {
      const secrets = [...(defaults.additionalSecretOutputs ?? []), ...(opts?.additionalSecretOutputs ?? [])];
      super(definition, name, args as object, { ...opts, ...(secrets.length ? { additionalSecretOutputs: secrets } : {}) });
    }
  };
  Object.defineProperty(cls, "name", { value: definition.kind });
  return cls as unknown as PluginClass<A, R>;
}

/** Every resource on the plugin face, by the dynamic class's name. */
export const plugin = {
  OrgMember: pluginClass<OrgMemberArgs, OrgMember>(orgMember),
  OrgMemberPermissions: pluginClass<OrgMemberPermissionsArgs, OrgMemberPermissions>(orgMemberPermissions),
  UserIdentifiers: pluginClass<UserIdentifiersArgs, UserIdentifiers>(userIdentifiers),
  DatabaseUserPermissions: pluginClass<DatabaseUserPermissionsArgs, DatabaseUserPermissions>(databaseUserPermissions),
  Invitation: pluginClass<InvitationArgs, Invitation>(invitation),
  OrganizationMembers: pluginClass<OrganizationMembersArgs, OrganizationMembers>(organizationMembers),
  DatabaseUsers: pluginClass<DatabaseUsersArgs, DatabaseUsers>(databaseUsers),
  CustodianDirectorySync: pluginClass<CustodianDirectorySyncArgs, CustodianDirectorySync>(custodianDirectorySync),
  Dataset: pluginClass<DatasetArgs, Dataset>(dataset),
  // As the dynamic class does: the link and the passwords are secret in state.
  SourceFile: pluginClass<SourceFileArgs, SourceFile>(sourceFile, { additionalSecretOutputs: ["passwords", "directLink"] }),
  EthicalWall: pluginClass<EthicalWallArgs, EthicalWall>(ethicalWall),
};
