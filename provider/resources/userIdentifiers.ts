/**
 * UserIdentifiers: the user identifiers of one existing member (E22). Delete clears them; the
 * membership stays.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { UserIdentifier } from "../../contract";
import { memberFieldImpl } from "./memberField";
import { ReviewAdminResource } from "./resource";

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
}

type Identifier = { abbreviation: string; label: string };

/** Identifiers sorted by abbreviation with only the two known fields, so order never shows as a change. */
export function normalizeIdentifiers(ids: readonly Identifier[]): Identifier[] {
  return ids.map((i) => ({ abbreviation: i.abbreviation, label: i.label })).sort((a, b) => a.abbreviation.localeCompare(b.abbreviation));
}

/** A list of identifiers as inputs: distinct abbreviations, normalized. */
export const IdentifierList = z
  .array(UserIdentifier.pick({ abbreviation: true, label: true }).strict())
  .refine((a) => new Set(a.map((i) => i.abbreviation)).size === a.length, { message: "must not repeat an abbreviation" })
  .transform(normalizeIdentifiers);

/** The plugin implementation. */
export const userIdentifiersImpl = memberFieldImpl<Identifier[]>({
  kind: "UserIdentifiers",
  field: "identifiers",
  bodyField: "userIdentifiers",
  schema: IdentifierList,
  read: (m) => normalizeIdentifiers(m.userIdentifiers),
  empty: [],
});

/** The user identifiers of one existing member. */
export class UserIdentifiers extends ReviewAdminResource {
  declare readonly organizationId: pulumi.Output<number>;
  declare readonly userId: pulumi.Output<number>;
  declare readonly email: pulumi.Output<string>;
  declare readonly identifiers: pulumi.Output<Identifier[]>;

  constructor(name: string, args: UserIdentifiersArgs, opts?: pulumi.CustomResourceOptions) {
    super("UserIdentifiers", name, args, ["userId", "email", "namedBy", "schemaVersion"], opts);
  }
}
