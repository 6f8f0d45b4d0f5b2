/**
 * Data sources for the account behind the key and its organizations (E2, E3, E6).
 */
import { z } from "zod";
import type { Organization, User } from "../../contract/types";
import { idArg } from "./args";
import { outputForm, type DataSourceFn } from "./dataSource";
import { defineDataSource } from "./defineDataSource";
import { matchesName, nameFilterArgs } from "./filters";
import type { GetCurrentUserArgs, GetOrganizationArgs, GetOrganizationsArgs } from "./argTypes.generated";

export type { GetCurrentUserArgs, GetOrganizationArgs, GetOrganizationsArgs };

/** getCurrentUser result: the user behind the API key (`GET /v1/users/me`). */
export type GetCurrentUserResult = User;

/**
 * getCurrentUser arguments: none.
 * @inputType GetCurrentUserArgs
 */
const getCurrentUserArgs = z.strictObject({});

/** Reads the user behind the API key (`GET /v1/users/me`; any valid key). */
export const getCurrentUser: DataSourceFn<GetCurrentUserArgs, GetCurrentUserResult> = defineDataSource({
  name: "getCurrentUser",
  args: getCurrentUserArgs,
  read: (_args, { client, reading, callOptions }) =>
    reading("the user behind the API key", () => client.call("GetCurrentUser", {}, undefined, callOptions)),
});

/** The Output form of getCurrentUser, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getCurrentUserOutput = outputForm(getCurrentUser);

/**
 * getOrganizations arguments: filters applied after every page is read.
 * @inputType GetOrganizationsArgs
 */
const getOrganizationsArgs = z.strictObject({
  ...nameFilterArgs.shape,
  /** Keep only the sub-organizations of this organization. */
  parentOrganizationId: idArg.optional(),
  /** true: only organizations with a parent; false: only top-level ones. */
  isSubOrganization: z.boolean().optional(),
});

export interface GetOrganizationsResult {
  /** The caller's organizations and their sub-organizations (`GET /v1/organizations`), after the filters, in the service's order. */
  organizations: Organization[];
  /** Their ids, in the same order. */
  ids: number[];
}

/** Lists every organization the key is a member of, plus sub-organizations (`GET /v1/organizations`, all pages), then filters. */
export const getOrganizations: DataSourceFn<GetOrganizationsArgs, GetOrganizationsResult> = defineDataSource({
  name: "getOrganizations",
  args: getOrganizationsArgs,
  read: async (args, { client, reading, callOptions }) => {
    const all = await reading("the organizations of the API key", () => client.listAll("GetOrganizations", {}, callOptions));
    const organizations = all.filter(
      (o) =>
        matchesName(args, o.name) &&
        (args.parentOrganizationId === undefined || o.parentOrganizationId === args.parentOrganizationId) &&
        (args.isSubOrganization === undefined || (o.parentOrganizationId != null) === args.isSubOrganization),
    );
    return { organizations, ids: organizations.map((o) => o.id) };
  },
});

/** The Output form of getOrganizations, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getOrganizationsOutput = outputForm(getOrganizations);

/**
 * getOrganization arguments.
 * @inputType GetOrganizationArgs
 */
const getOrganizationArgs = z.strictObject({
  /** The organization to read. */
  organizationId: idArg,
});

/** getOrganization result: the organization (`GET /v1/organizations/{orgId}`). */
export type GetOrganizationResult = Organization;

/** Reads one organization (`GET /v1/organizations/{orgId}`; member of it, or parent org admin). */
export const getOrganization: DataSourceFn<GetOrganizationArgs, GetOrganizationResult> = defineDataSource({
  name: "getOrganization",
  args: getOrganizationArgs,
  read: ({ organizationId }, { client, reading, callOptions }) =>
    reading(`organization ${organizationId}`, () => client.call("GetOrganization", { orgId: organizationId }, undefined, callOptions)),
});

/** The Output form of getOrganization, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getOrganizationOutput = outputForm(getOrganization);
