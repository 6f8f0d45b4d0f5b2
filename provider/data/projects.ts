/**
 * Data sources for projects (E4, E16, E29).
 */
import type { Project } from "../../contract";
import { callOptions, clientFor, outputForm, PAGE_SIZE, reading, requireId, type DataSourceOptions } from "./dataSource";
import { matchesFlag, matchesName, type NameFilter } from "./filters";

/** Project filters, applied after every page is read. The name filters match `name` or `displayName`. */
export interface ProjectFilter extends NameFilter {
  /** Keep only projects of databases owned by this organization. */
  organizationId?: number;
  /** Keep only projects of this database. */
  databaseId?: number;
  /** true: only suspended projects; false: only projects that are not suspended. */
  suspended?: boolean;
  /** true: only early-case-assessment projects; false: only the others. */
  eca?: boolean;
  /** true: only partial projects; false: only complete ones. */
  partial?: boolean;
  /** Keep only projects with this productionMode. */
  productionMode?: boolean;
  /** Keep only projects with this mfaRequired. */
  mfaRequired?: boolean;
}

/** Result of the project lists. */
export interface GetProjectsResult {
  /** The projects, after the filters, in the service's order. */
  projects: Project[];
  /** Their ids, in the same order. */
  ids: number[];
}

/** Applies a ProjectFilter to a list of projects. */
export function filterProjects(all: Project[], f: ProjectFilter): GetProjectsResult {
  const projects = all.filter(
    (p) =>
      matchesName(f, p.name, p.displayName) &&
      (f.organizationId === undefined || p.database.owningOrganizationId === f.organizationId) &&
      (f.databaseId === undefined || p.database.id === f.databaseId) &&
      matchesFlag(f.suspended, p.suspended) &&
      matchesFlag(f.eca, p.eca) &&
      matchesFlag(f.partial, p.partial) &&
      matchesFlag(f.productionMode, p.productionMode) &&
      matchesFlag(f.mfaRequired, p.mfaRequired),
  );
  return { projects, ids: projects.map((p) => p.id) };
}

/** getProjects arguments: filters applied after every page is read. */
export type GetProjectsArgs = ProjectFilter;

/** Lists every project the key can access (E4, all pages), then filters. */
export async function getProjects(args: GetProjectsArgs = {}, opts?: DataSourceOptions): Promise<GetProjectsResult> {
  const client = clientFor("getProjects", opts);
  const all = await reading("getProjects", "the projects of the API key", () => client.listAll("GetProjects", { limit: PAGE_SIZE }, callOptions(opts)));
  return filterProjects(all, args);
}

export const getProjectsOutput = outputForm(getProjects);

export interface GetOrganizationProjectsArgs extends Omit<ProjectFilter, "organizationId"> {
  organizationId: number;
}

export interface GetOrganizationProjectsResult extends GetProjectsResult {
  /** The organization asked about. */
  organizationId: number;
}

/** Lists every project of an organization's databases (E16, all pages; org admin or parent org admin), then filters. */
export async function getOrganizationProjects(
  args: GetOrganizationProjectsArgs,
  opts?: DataSourceOptions,
): Promise<GetOrganizationProjectsResult> {
  const organizationId = requireId("getOrganizationProjects", "organizationId", args?.organizationId);
  const client = clientFor("getOrganizationProjects", opts);
  const all = await reading("getOrganizationProjects", `the projects of organization ${organizationId}`, () =>
    client.listAll("GetOrganizationProjects", { orgId: organizationId, limit: PAGE_SIZE }, callOptions(opts)),
  );
  const { organizationId: _o, ...filter } = args;
  return { organizationId, ...filterProjects(all, filter) };
}

export const getOrganizationProjectsOutput = outputForm(getOrganizationProjects);

export interface GetDatabaseProjectsArgs extends Omit<ProjectFilter, "databaseId" | "organizationId"> {
  databaseId: number;
}

/** getDatabaseProjects result; projects here also carry emailThreadingStatus and lastLogin. */
export interface GetDatabaseProjectsResult extends GetProjectsResult {
  /** The database asked about. */
  databaseId: number;
}

/** Lists every project of a database (E29, all pages; DB_ADMIN, or org admin or parent org admin of its owner), then filters. */
export async function getDatabaseProjects(args: GetDatabaseProjectsArgs, opts?: DataSourceOptions): Promise<GetDatabaseProjectsResult> {
  const databaseId = requireId("getDatabaseProjects", "databaseId", args?.databaseId);
  const client = clientFor("getDatabaseProjects", opts);
  const all = await reading("getDatabaseProjects", `the projects of database ${databaseId}`, () =>
    client.listAll("GetDatabaseProjects", { databaseId, limit: PAGE_SIZE }, callOptions(opts)),
  );
  const { databaseId: _d, ...filter } = args;
  return { databaseId, ...filterProjects(all, filter) };
}

export const getDatabaseProjectsOutput = outputForm(getDatabaseProjects);
