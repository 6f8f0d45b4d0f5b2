/**
 * The gateway to database grants (DatabaseUsers, DatabaseUserPermissions, EthicalWall): it owns the
 * run's list of each database's users (listed once per run, in pages of 200, kept up to date by
 * every write made here) and the writes themselves. Nothing else sets or removes a grant.
 */
import type { Database, DatabasePermission, DatabaseUser } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { ignore404 } from "../failures";
import { mapLimit } from "../util";
import type { RosterWrite } from "./plan";
import { amend, memo, perClient } from "./runCache";

const lists = perClient(() => new Map<number, Promise<Map<number, DatabaseUser>>>());
const described = perClient(() => new Map<number, Promise<Database>>());

/** The database as the service describes it (E27: its owner, its orgAdminAccess), asked once per run. */
export function describedDatabase(client: ReviewAdminClient, databaseId: number): Promise<Database> {
  return memo(described(client), databaseId, () => client.call("GetDatabase", { databaseId }));
}

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

/**
 * A DatabaseUsers roster's writes: each grant to add or change set (E26), in the roster's order,
 * then removals (E24), eight at a time; through `guarded` when the plan takes a DB_ADMIN.
 */
export async function writeDatabaseRoster({ client, scope, plan, wrote, guarded }: RosterWrite<unknown, unknown>): Promise<void> {
  const sets = new Set([...plan.add, ...plan.change]);
  const writeAll = async () => {
    // The plan's grants of the day, in the roster's order; at a database their permissions are database permissions.
    await mapLimit(
      Object.keys(plan.current).filter((id) => sets.has(id)),
      8,
      async (id) => {
        await setGrant(client, scope.id, Number(id), (plan.current[id]!.permissions ?? []) as DatabasePermission[]);
        wrote();
      },
    );
    await mapLimit(plan.remove, 8, async (id) => {
      await removeGrant(client, scope.id, Number(id));
      wrote();
    });
  };
  await (plan.losing.length ? guarded(writeAll) : writeAll());
}
