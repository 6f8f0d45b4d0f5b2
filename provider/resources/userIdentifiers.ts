/**
 * UserIdentifiers: the user identifiers of one existing member (E22).
 */
import type * as pulumi from "@pulumi/pulumi";
import { IdentifierList } from "./support/inputs";
import { argsMatch } from "./support/lifecycle";
import { memberFieldResource } from "./support/memberFieldResource";
import type { MemberFieldInputs, MemberFieldState } from "./support/memberFieldTypes";
import { normalizeIdentifiers, type Identifier } from "../normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";

/** A user identifier as a program writes it. */
export interface UserIdentifierInput {
  abbreviation: pulumi.Input<string>;
  label: pulumi.Input<string>;
}

/** Inputs of a UserIdentifiers. Give exactly one of userId and email. */
export interface UserIdentifiersArgs {
  organizationId: pulumi.Input<number>;
  /** The member's user id. Changing it replaces. */
  userId?: pulumi.Input<number>;
  /** The member's email (case-insensitive). Changing it replaces. */
  email?: pulumi.Input<string>;
  /** The whole set of the member's identifiers; abbreviations must be distinct. */
  identifiers: pulumi.Input<pulumi.Input<UserIdentifierInput>[]>;
  /** Accepted for symmetry with OrgMemberPermissions; identifiers never lock anyone out. */
  allowAdminRemoval?: pulumi.Input<boolean>;
}

/** The UserIdentifiers implementation run by the plugin. */
export const userIdentifiers = memberFieldResource({
  kind: "UserIdentifiers",
  field: "identifiers",
  memberField: "identifiers",
  schema: IdentifierList,
  read: (m) => normalizeIdentifiers(m.userIdentifiers),
  empty: [] as Identifier[],
});
// Identifiers are no grant: they take no expiresOn.
argsMatch<UserIdentifiersArgs, Omit<MemberFieldInputs<"identifiers", Identifier[]>, "expiresOn">>(true);

/** The user identifiers of one existing member. Create never adds anyone; delete clears them, and the membership stays. */
export interface UserIdentifiers extends Outputs<
  Omit<MemberFieldState<"identifiers", Identifier[]>, "namedBy" | "allowAdminRemoval" | "expiresOn" | "expiringSoon" | "expiredOn">
> {}
export class UserIdentifiers extends ReviewAdminResource {
  constructor(name: string, args: UserIdentifiersArgs, opts?: pulumi.CustomResourceOptions) {
    super(userIdentifiers.definition, name, args, opts);
  }
}
