/**
 * DatabaseUserPermissions: one user's permissions on one database (E23 to E26).
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { DatabasePermission, DatabaseUser } from "../../contract";
import type { ReviewAdminClient } from "../client";
import { isStatus } from "../failures";
import { definedOnly } from "../util";
import { DatabaseId, DatabasePermissions, UserId } from "./support/inputs";
import { argsMatch, defineResource } from "./support/lifecycle";
import { sortedSet } from "./support/normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";
import { listedDatabaseUsers, rememberDatabaseUser } from "./support/runCache";

/** Inputs of a DatabaseUserPermissions. */
export interface DatabaseUserPermissionsArgs {
  /** The database. Changing it replaces. */
  databaseId: pulumi.Input<number>;
  /** The user. Changing it replaces. */
  userId: pulumi.Input<number>;
  /** The whole set of the user's permissions on the database (at least one). */
  permissions: pulumi.Input<pulumi.Input<DatabasePermission>[]>;
}

const Inputs = z.strictObject({
  databaseId: DatabaseId,
  userId: UserId,
  permissions: DatabasePermissions.refine((a) => a.length > 0, {
    message: "must hold at least one permission; to take all of them away, delete the resource",
  }),
});
type Inputs = z.infer<typeof Inputs>;
argsMatch<DatabaseUserPermissionsArgs, z.input<typeof Inputs>>(true);

/** What a DatabaseUserPermissions stores. */
export interface DatabaseUserPermissionsState extends Inputs {
  /** Whether the user's account is active, as the service reports it. */
  active: boolean;
  username: string | null;
  /** True when the user already held permissions on the database when the resource was created. */
  adopted: boolean;
}

const label = (s: { databaseId: number; userId: number }) => `DatabaseUserPermissions of user ${s.userId} on database ${s.databaseId}`;

function stateOf(inputs: Inputs, live: DatabaseUser, adopted: boolean): DatabaseUserPermissionsState {
  return definedOnly({
    databaseId: inputs.databaseId,
    userId: inputs.userId,
    permissions: sortedSet(live.permissions),
    active: live.active,
    username: live.user.username ?? null,
    adopted,
  });
}

/** Sets the user's permissions (E26 overwrites). */
async function setPermissions(client: ReviewAdminClient, inputs: Inputs): Promise<DatabaseUser> {
  const live = await client.call(
    "PutDatabaseUser",
    { databaseId: inputs.databaseId, userId: inputs.userId },
    { databasePermissions: inputs.permissions },
  );
  await rememberDatabaseUser(client, inputs.databaseId, inputs.userId, live);
  return live;
}

/** The DatabaseUserPermissions implementation run by the plugin. */
export const databaseUserPermissions = defineResource<Inputs, DatabaseUserPermissionsState>({
  kind: "DatabaseUserPermissions",
  inputs: Inputs,
  outputs: ["databaseId", "userId", "permissions", "active", "username", "adopted"],
  label,
  idOf: (s) => `${s.databaseId}/${s.userId}`,
  // Delete-first: E26 is an upsert, so create-then-delete could remove the grant it just made.
  diff: { replaceOn: ["databaseId", "userId"], update: ["permissions"], deleteBeforeReplace: true },

  async create(inputs, { client }) {
    const existing = (await listedDatabaseUsers(client, inputs.databaseId)).get(inputs.userId);
    return stateOf(inputs, await setPermissions(client, inputs), !!existing && existing.permissions.length > 0);
  },

  async read(state, { client }) {
    const live = (await listedDatabaseUsers(client, state.databaseId)).get(state.userId);
    if (!live || live.permissions.length === 0) return undefined;
    const fresh = stateOf(state, live, state.adopted);
    return { state: fresh, inputs: { databaseId: fresh.databaseId, userId: fresh.userId, permissions: fresh.permissions } };
  },

  async update(olds, news, { client }) {
    return stateOf(news, await setPermissions(client, news), olds.adopted);
  },

  async delete(state, { client }) {
    await client.call("DeleteDatabaseUser", { databaseId: state.databaseId, userId: state.userId }).catch((err) => {
      if (!isStatus(err, 404)) throw err;
    });
    await rememberDatabaseUser(client, state.databaseId, state.userId, undefined);
  },
});

/**
 * One user's permissions on one database. Setting overwrites (E26 is an upsert), so a change of
 * database or user replaces delete-first, and a user who already holds permissions is adopted
 * (`adopted: true`). Delete removes the user's database permissions (E24).
 */
export interface DatabaseUserPermissions extends Outputs<DatabaseUserPermissionsState> {}
export class DatabaseUserPermissions extends ReviewAdminResource {
  constructor(name: string, args: DatabaseUserPermissionsArgs, opts?: pulumi.CustomResourceOptions) {
    super(databaseUserPermissions.definition, name, args, opts);
  }
}
