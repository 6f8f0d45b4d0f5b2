/**
 * The gateway to database grants (DatabaseUsers, DatabaseUserPermissions, EthicalWall): it owns the
 * run's list of each database's users (listed once per run, in pages of 200, kept up to date by
 * every write made here) and the writes themselves. Nothing else sets or removes a grant.
 */
import type { DatabasePermission, DatabaseUser } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { ignore404 } from "../failures";
import { amend, memo, perClient } from "./runCache";

const lists = perClient(() => new Map<number, Promise<Map<number, DatabaseUser>>>());

/** A database's users with permissions by user id, listed once per run. */
export function listedDatabaseUsers(client: ReviewAdminClient, databaseId: number): Promise<Map<number, DatabaseUser>> {
  return memo(lists(client), databaseId, async () => {
    const list = await client.listAll("GetDatabaseUsers", { databaseId });
    return new Map(list.map((u) => [u.user.id, u]));
  });
}

/** Lists a database's users again, bypassing the run's list, and keeps the fresh list for the rest of the run. */
export async function relistDatabaseUsers(client: ReviewAdminClient, databaseId: number): Promise<Map<number, DatabaseUser>> {
  lists(client).delete(databaseId);
  return listedDatabaseUsers(client, databaseId);
}

/** Sets a user's permissions on a database (E26 overwrites) and returns the grant as the service now holds it. */
export async function setGrant(
  client: ReviewAdminClient,
  databaseId: number,
  userId: number,
  permissions: DatabasePermission[],
): Promise<DatabaseUser> {
  const live = await client.call("PutDatabaseUser", { databaseId, userId }, { databasePermissions: permissions });
  await amend(lists(client), databaseId, (m) => m.set(userId, live));
  return live;
}

/** Removes a user's permissions on a database (E24); already gone counts as done. */
export async function removeGrant(client: ReviewAdminClient, databaseId: number, userId: number): Promise<void> {
  await client.call("DeleteDatabaseUser", { databaseId, userId }).catch(ignore404);
  await amend(lists(client), databaseId, (m) => m.delete(userId));
}
