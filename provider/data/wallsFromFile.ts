/**
 * getWallsFromFile: the firm's ethical walls from its wall system's export (a CSV, provider/wallFile.ts),
 * judged against the service the key sees, for a program to declare EthicalWall resources from
 * (issue 37). Unknown people and matters are returned as problems with their lines, never dropped.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import type { DatabaseUser } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { listedDatabaseUsers } from "../access/databaseGrants";
import { listedMembers } from "../access/orgPeople";
import { isStatus } from "../failures";
import { normalizeEmail } from "../normalize";
import { readWallFile, WallFileError, type FileWall, type WallFileProblem, type WallWorld } from "../wallFile";
import { outputForm, type DataSourceFn } from "./dataSource";
import { defineDataSource } from "./defineDataSource";
import type { GetWallsFromFileArgs } from "./argTypes.generated";

export type { GetWallsFromFileArgs, FileWall, WallFileProblem };

/**
 * getWallsFromFile arguments.
 * @inputType GetWallsFromFileArgs
 */
const getWallsFromFileArgs = z.strictObject({
  /** The wall file (CSV, docs/walls.md), relative to the program's folder. */
  path: z.string().min(1, { message: "must name the wall file" }),
});

/** getWallsFromFile result. */
export interface GetWallsFromFileResult {
  /** One wall per matter whose databases are known: `new EthicalWall(w.name, { ...w.args, onBreach })`. */
  walls: FileWall[];
  /** Every row or column not read, unknown person and unknown matter, by line. */
  problems: WallFileProblem[];
}

/** The databases the key sees (`GET /v1/databases`), and the emails of their organizations' members (`GET /v1/organizations/{orgId}/users`) and users (`GET /v1/databases/{databaseId}/users`), where the key may list them. */
async function wallWorld(client: ReviewAdminClient): Promise<WallWorld> {
  const databases = await client.listAll("GetDatabases", {});
  const people = new Set<string>();
  const forbidden =
    <T>(empty: T) =>
    (err: unknown) => {
      if (isStatus(err, 403)) return empty;
      throw err;
    };
  for (const orgId of new Set(databases.map((d) => d.owningOrganizationId))) {
    const members = await listedMembers(client, orgId).catch(forbidden(new Map<number, { email: string }>()));
    for (const m of members.values()) people.add(normalizeEmail(m.email));
  }
  for (const d of databases) {
    const users = await listedDatabaseUsers(client, d.id).catch(forbidden(new Map<number, DatabaseUser>()));
    for (const u of users.values()) if (u.user.username?.includes("@")) people.add(normalizeEmail(u.user.username));
  }
  return { databases, people };
}

/** Reads the wall file and judges it against the databases and people the key sees. */
export const getWallsFromFile: DataSourceFn<GetWallsFromFileArgs, GetWallsFromFileResult> = defineDataSource({
  name: "getWallsFromFile",
  args: getWallsFromFileArgs,
  read: async (args, { client, reading, readFailure }) => {
    const file = path.resolve(args.path);
    const text = await reading(`the wall file ${file}`, () => fs.promises.readFile(file, "utf8"));
    const world = await reading("the databases and people the API key sees", () => wallWorld(client));
    try {
      return readWallFile(text, world);
    } catch (err) {
      throw err instanceof WallFileError ? readFailure(`the wall file ${file}`, err) : err;
    }
  },
});

/** The Output form of getWallsFromFile, for a Pulumi program. */
export const getWallsFromFileOutput = outputForm(getWallsFromFile);
