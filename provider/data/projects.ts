/**
 * Data sources for projects (E4, E16, E29).
 */
import { z } from "zod";
import type { Project } from "../../contract/types";
import { idArg } from "./args";
import { outputForm, type DataSourceFn } from "./dataSource";
import { defineDataSource } from "./defineDataSource";
import { matchesFlag, matchesName, nameFilterArgs } from "./filters";
import type { GetDatabaseProjectsArgs, GetOrganizationProjectsArgs, GetProjectsArgs, ProjectFilter } from "./argTypes.generated";

export type { GetDatabaseProjectsArgs, GetOrganizationProjectsArgs, GetProjectsArgs, ProjectFilter };

/**
 * Project filters as parsed (ids are numbers), applied after every page is read. The name filters match `name` or `displayName`.
 * @outputType ProjectFilter
 */
const projectFilterArgs = z.object({
  ...nameFilterArgs.shape,
  /** Keep only projects of databases owned by this organization. */
  organizationId: idArg.optional(),
  /** Keep only projects of this database. */
  databaseId: idArg.optional(),
  /** true: only suspended projects; false: only projects that are not suspended. */
  suspended: z.boolean().optional(),
  /** true: only early-case-assessment projects; false: only the others. */
  eca: z.boolean().optional(),
  /** true: only partial projects; false: only complete ones. */
  partial: z.boolean().optional(),
  /** Keep only projects with this productionMode. */
  productionMode: z.boolean().optional(),
  /** Keep only projects with this mfaRequired. */
  mfaRequired: z.boolean().optional(),
});

/** Result of the project lists. */
export interface GetProjectsResult {
  /** The projects, after the filters, in the service's order. */
  projects: Project[];
  /** Their ids, in the same order. */
  ids: number[];
}

/** Applies a ProjectFilter to a list of projects. */
function filterProjects(all: Project[], f: ProjectFilter): GetProjectsResult {
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

/**
 * getProjects arguments: filters applied after every page is read.
 * @inputType GetProjectsArgs
 */
const getProjectsArgs = projectFilterArgs.strict();

/** Lists every project the key can access (`GET /v1/projects`, all pages), then filters. */
export const getProjects: DataSourceFn<GetProjectsArgs, GetProjectsResult> = defineDataSource({
  name: "getProjects",
  args: getProjectsArgs,
  read: async (args, { client, reading, callOptions }) =>
    filterProjects(await reading("the projects of the API key", () => client.listAll("GetProjects", {}, callOptions)), args),
});

/** The Output form of getProjects, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getProjectsOutput = outputForm(getProjects);

/**
 * getOrganizationProjects arguments: the organization, and filters applied after every page is read.
 * @inputType GetOrganizationProjectsArgs
 */
const getOrganizationProjectsArgs = projectFilterArgs.strict().extend({
  /** The organization whose databases' projects to list. */
  organizationId: idArg,
});

export interface GetOrganizationProjectsResult extends GetProjectsResult {
  /** The organization asked about. */
  organizationId: number;
}

/** Lists every project of an organization's databases (`GET /v1/organizations/{orgId}/projects`, all pages; org admin or parent org admin), then filters. */
export const getOrganizationProjects: DataSourceFn<GetOrganizationProjectsArgs, GetOrganizationProjectsResult> = defineDataSource({
  name: "getOrganizationProjects",
  args: getOrganizationProjectsArgs,
  read: async ({ organizationId, ...filter }, { client, reading, callOptions }) => {
    const all = await reading(`the projects of organization ${organizationId}`, () =>
      client.listAll("GetOrganizationProjects", { orgId: organizationId }, callOptions),
    );
    return { organizationId, ...filterProjects(all, filter) };
  },
});

/** The Output form of getOrganizationProjects, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getOrganizationProjectsOutput = outputForm(getOrganizationProjects);

/**
 * getDatabaseProjects arguments: the database, and filters applied after every page is read.
 * @inputType GetDatabaseProjectsArgs
 */
const getDatabaseProjectsArgs = projectFilterArgs.omit({ organizationId: true }).strict().extend({
  /** The database whose projects to list. */
  databaseId: idArg,
});

/** getDatabaseProjects result; projects here also carry emailThreadingStatus and lastLogin. */
export interface GetDatabaseProjectsResult extends GetProjectsResult {
  /** The database asked about. */
  databaseId: number;
}

/** Lists every project of a database (`GET /v1/databases/{databaseId}/projects`, all pages; DB_ADMIN, or org admin or parent org admin of its owner), then filters. */
export const getDatabaseProjects: DataSourceFn<GetDatabaseProjectsArgs, GetDatabaseProjectsResult> = defineDataSource({
  name: "getDatabaseProjects",
  args: getDatabaseProjectsArgs,
  read: async ({ databaseId, ...filter }, { client, reading, callOptions }) => {
    const all = await reading(`the projects of database ${databaseId}`, () =>
      client.listAll("GetDatabaseProjects", { databaseId }, callOptions),
    );
    return { databaseId, ...filterProjects(all, filter) };
  },
});

/** The Output form of getDatabaseProjects, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getDatabaseProjectsOutput = outputForm(getDatabaseProjects);
