/**
 * Data sources for the account behind the key and its organizations (E2, E3, E6).
 */
import type { Organization, User } from "../../contract";
import { callOptions, clientFor, outputForm, PAGE_SIZE, reading, requireId, type DataSourceOptions } from "./dataSource";
import { matchesName, type NameFilter } from "./filters";

/** getCurrentUser result: the user behind the API key (E2). */
export type GetCurrentUserResult = User;

/** Reads the user behind the API key (E2; any valid key). */
export async function getCurrentUser(_args: Record<string, never> = {}, opts?: DataSourceOptions): Promise<GetCurrentUserResult> {
  const client = clientFor("getCurrentUser", opts);
  return reading("getCurrentUser", "the user behind the API key", () => client.call("GetCurrentUser", {}, undefined, callOptions(opts)));
}

export const getCurrentUserOutput = outputForm(getCurrentUser);

/** getOrganizations arguments: filters applied after every page is read. */
export interface GetOrganizationsArgs extends NameFilter {
  /** Keep only the sub-organizations of this organization. */
  parentOrganizationId?: number;
  /** true: only organizations with a parent; false: only top-level ones. */
  isSubOrganization?: boolean;
}

export interface GetOrganizationsResult {
  /** The caller's organizations and their sub-organizations (E3), after the filters, in the service's order. */
  organizations: Organization[];
  /** Their ids, in the same order. */
  ids: number[];
}

/** Lists every organization the key is a member of, plus sub-organizations (E3, all pages), then filters. */
export async function getOrganizations(args: GetOrganizationsArgs = {}, opts?: DataSourceOptions): Promise<GetOrganizationsResult> {
  const client = clientFor("getOrganizations", opts);
  const all = await reading("getOrganizations", "the organizations of the API key", () =>
    client.listAll("GetOrganizations", { limit: PAGE_SIZE }, callOptions(opts)),
  );
  const organizations = all.filter(
    (o) =>
      matchesName(args, o.name) &&
      (args.parentOrganizationId === undefined || o.parentOrganizationId === args.parentOrganizationId) &&
      (args.isSubOrganization === undefined || (o.parentOrganizationId != null) === args.isSubOrganization),
  );
  return { organizations, ids: organizations.map((o) => o.id) };
}

export const getOrganizationsOutput = outputForm(getOrganizations);

export interface GetOrganizationArgs {
  organizationId: number;
}

/** getOrganization result: the organization (E6). */
export type GetOrganizationResult = Organization;

/** Reads one organization (E6; member of it, or parent org admin). */
export async function getOrganization(args: GetOrganizationArgs, opts?: DataSourceOptions): Promise<GetOrganizationResult> {
  const organizationId = requireId("getOrganization", "organizationId", args?.organizationId);
  const client = clientFor("getOrganization", opts);
  return reading("getOrganization", `organization ${organizationId}`, () => client.call("GetOrganization", { orgId: organizationId }, undefined, callOptions(opts)));
}

export const getOrganizationOutput = outputForm(getOrganization);
