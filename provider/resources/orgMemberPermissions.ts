/**
 * OrgMemberPermissions: the organization permissions of one existing member (E21/E22), for repos
 * where membership is managed elsewhere. Delete removes all of the member's permissions (with
 * the anti-lockout guard); the membership itself stays.
 */
import * as pulumi from "@pulumi/pulumi";
import { OrganizationPermission, uniqueArray } from "../../contract";
import { sortedSet } from "./base";
import { memberFieldImpl } from "./memberField";
import { ReviewAdminResource } from "./resource";

/** Inputs of an OrgMemberPermissions. Give exactly one of userId and email. */
export interface OrgMemberPermissionsArgs {
  organizationId: pulumi.Input<number>;
  /** The member's user id. Changing it replaces. */
  userId?: pulumi.Input<number>;
  /** The member's email (case-insensitive). Changing it replaces. */
  email?: pulumi.Input<string>;
  /** The whole set of the member's organization permissions. */
  permissions: pulumi.Input<pulumi.Input<OrganizationPermission>[]>;
  /** Allow removing ORG_ADMIN from the key's own user or the last org admin. Default false. */
  allowAdminRemoval?: pulumi.Input<boolean>;
}

const hasAdmin = (v: OrganizationPermission[] | undefined) => !!v?.includes("ORG_ADMIN");

/** The plugin implementation. */
export const orgMemberPermissionsImpl = memberFieldImpl<OrganizationPermission[]>({
  kind: "OrgMemberPermissions",
  field: "permissions",
  bodyField: "organizationPermissions",
  schema: uniqueArray(OrganizationPermission).transform((a) => sortedSet(a)!),
  read: (m) => sortedSet(m.permissions)!,
  empty: [],
  removesAdmin: (from, to) => hasAdmin(from) && !hasAdmin(to),
});

/** The organization permissions of one existing member. */
export class OrgMemberPermissions extends ReviewAdminResource {
  declare readonly organizationId: pulumi.Output<number>;
  /** The member's user id (resolved from the email when named by email). */
  declare readonly userId: pulumi.Output<number>;
  /** The member's email, lower-cased. */
  declare readonly email: pulumi.Output<string>;
  declare readonly permissions: pulumi.Output<OrganizationPermission[]>;
  declare readonly allowAdminRemoval: pulumi.Output<boolean | undefined>;

  constructor(name: string, args: OrgMemberPermissionsArgs, opts?: pulumi.CustomResourceOptions) {
    super("OrgMemberPermissions", name, args, ["userId", "email", "allowAdminRemoval", "namedBy", "schemaVersion"], opts);
  }
}
