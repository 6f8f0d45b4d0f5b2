/**
 * OrgMemberPermissions: the organization permissions of one existing member (E21/E22).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { OrganizationPermission } from "../../contract/types";
import { OrganizationPermissions } from "./support/inputs";
import { argsMatch } from "./support/lifecycle";
import { memberFieldResource } from "./support/memberFieldResource";
import type { MemberFieldInputs, MemberFieldState } from "./support/memberFieldTypes";
import { sortedSet } from "../normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";

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
  /** "YYYY-MM-DD" (UTC): the permissions end at the start of this day; from then on up removes them all (`expiredOn`). */
  expiresOn?: pulumi.Input<string>;
}

/** The OrgMemberPermissions implementation run by the plugin. */
export const orgMemberPermissions = memberFieldResource({
  kind: "OrgMemberPermissions",
  field: "permissions",
  memberField: "permissions",
  schema: OrganizationPermissions,
  read: (m) => sortedSet(m.permissions),
  empty: [],
  expires: true,
});
argsMatch<OrgMemberPermissionsArgs, MemberFieldInputs<"permissions", OrganizationPermission[]>>(true);

/**
 * The organization permissions of one existing member, for repos where membership is managed
 * elsewhere. Create never adds anyone. Delete removes all of the member's permissions (with the
 * anti-lockout guard); the membership itself stays.
 */
export interface OrgMemberPermissions extends Outputs<Omit<MemberFieldState<"permissions", OrganizationPermission[]>, "namedBy">> {}
export class OrgMemberPermissions extends ReviewAdminResource {
  constructor(name: string, args: OrgMemberPermissionsArgs, opts?: pulumi.CustomResourceOptions) {
    super(orgMemberPermissions.definition, name, args, opts);
  }
}
