/**
 * Data sources for databases (E1, E9, E27, E30).
 */
import { z } from "zod";
import type { Database, DatabaseSize } from "../../contract/types";
import { idArg } from "./args";
import { outputForm, type DataSourceFn } from "./dataSource";
import { defineDataSource } from "./defineDataSource";
import { matchesFlag, matchesName, nameFilterArgs } from "./filters";
import type {
  DatabaseFilter,
  GetDatabaseArgs,
  GetDatabaseSizeArgs,
  GetDatabasesArgs,
  GetOrganizationDatabasesArgs,
} from "./argTypes.generated";

export type { DatabaseFilter, GetDatabaseArgs, GetDatabaseSizeArgs, GetDatabasesArgs, GetOrganizationDatabasesArgs };

/**
 * Filters shared by the database lists, applied after every page is read.
 * @outputType DatabaseFilter
 */
const databaseFilterArgs = z.object({
  ...nameFilterArgs.shape,
  /** Keep only databases with this orgAdminAccess setting. */
  orgAdminAccess: z.boolean().optional(),
});

/**
 * getDatabases arguments: filters applied after every page is read.
 * @inputType GetDatabasesArgs
 */
const getDatabasesArgs = z.strictObject({
  ...databaseFilterArgs.shape,
  /** Keep only databases owned by this organization. */
  organizationId: idArg.optional(),
});

/** Result of the database lists. */
export interface GetDatabasesResult {
  /** The databases, after the filters, in the service's order. */
  databases: Database[];
  /** Their ids, in the same order. */
  ids: number[];
}

function filterDatabases(all: Database[], args: DatabaseFilter & { organizationId?: number }): GetDatabasesResult {
  const databases = all.filter(
    (d) =>
      matchesName(args, d.name) &&
      matchesFlag(args.orgAdminAccess, d.orgAdminAccess) &&
      (args.organizationId === undefined || d.owningOrganizationId === args.organizationId),
  );
  return { databases, ids: databases.map((d) => d.id) };
}

/** Lists every database the key administers (`GET /v1/databases`, all pages: DB_ADMIN on it, or org admin of its owner), then filters. */
export const getDatabases: DataSourceFn<GetDatabasesArgs, GetDatabasesResult> = defineDataSource({
  name: "getDatabases",
  args: getDatabasesArgs,
  read: async (args, { client, reading, callOptions }) =>
    filterDatabases(await reading("the databases of the API key", () => client.listAll("GetDatabases", {}, callOptions)), args),
});

/** The Output form of getDatabases, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getDatabasesOutput = outputForm(getDatabases);

/**
 * getDatabase arguments.
 * @inputType GetDatabaseArgs
 */
const getDatabaseArgs = z.strictObject({
  /** The database to read. */
  databaseId: idArg,
});

/** getDatabase result: the database (`GET /v1/databases/{databaseId}`). */
export type GetDatabaseResult = Database;

/** Reads one database (`GET /v1/databases/{databaseId}`; DB_ADMIN on it, or org admin or parent org admin of its owner). */
export const getDatabase: DataSourceFn<GetDatabaseArgs, GetDatabaseResult> = defineDataSource({
  name: "getDatabase",
  args: getDatabaseArgs,
  read: ({ databaseId }, { client, reading, callOptions }) =>
    reading(`database ${databaseId}`, () => client.call("GetDatabase", { databaseId }, undefined, callOptions)),
});

/** The Output form of getDatabase, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getDatabaseOutput = outputForm(getDatabase);

/**
 * getOrganizationDatabases arguments: the organization, and filters applied after every page is read.
 * @inputType GetOrganizationDatabasesArgs
 */
const getOrganizationDatabasesArgs = z.strictObject({
  ...databaseFilterArgs.shape,
  /** The owning organization. */
  organizationId: idArg,
});

export interface GetOrganizationDatabasesResult extends GetDatabasesResult {
  /** The organization asked about. */
  organizationId: number;
}

/** Lists every database an organization owns (`GET /v1/organizations/{orgId}/databases`, all pages; org admin or parent org admin), then filters. */
export const getOrganizationDatabases: DataSourceFn<GetOrganizationDatabasesArgs, GetOrganizationDatabasesResult> = defineDataSource({
  name: "getOrganizationDatabases",
  args: getOrganizationDatabasesArgs,
  read: async ({ organizationId, ...filter }, { client, reading, callOptions }) => {
    const all = await reading(`the databases of organization ${organizationId}`, () =>
      client.listAll("GetOrganizationDatabases", { orgId: organizationId }, callOptions),
    );
    return { organizationId, ...filterDatabases(all, filter) };
  },
});

/** The Output form of getOrganizationDatabases, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getOrganizationDatabasesOutput = outputForm(getOrganizationDatabases);

/**
 * getDatabaseSize arguments.
 * @inputType GetDatabaseSizeArgs
 */
const getDatabaseSizeArgs = z.strictObject({
  /** The database to measure. */
  databaseId: idArg,
});

/** getDatabaseSize result: document counts and sizes of native, processed and produced documents (`GET /v1/databases/{databaseId}/size`; the spec does not state the units). */
export interface GetDatabaseSizeResult extends DatabaseSize {
  /** The database asked about. */
  databaseId: number;
}

/** Reads a database's document counts and sizes (`GET /v1/databases/{databaseId}/size`; each document counted once). */
export const getDatabaseSize: DataSourceFn<GetDatabaseSizeArgs, GetDatabaseSizeResult> = defineDataSource({
  name: "getDatabaseSize",
  args: getDatabaseSizeArgs,
  read: async ({ databaseId }, { client, reading, callOptions }) => {
    const size = await reading(`the size of database ${databaseId}`, () =>
      client.call("GetDatabaseSize", { databaseId }, undefined, callOptions),
    );
    return { ...size, databaseId };
  },
});

/** The Output form of getDatabaseSize, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getDatabaseSizeOutput = outputForm(getDatabaseSize);
