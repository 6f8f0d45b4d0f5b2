/**
 * DatabaseUserPermissions: one user's permissions on one database (E23 to E26). Setting
 * overwrites (E26 is an upsert), so a change of database or user replaces delete-first, and a
 * user who already holds permissions is adopted. Delete removes the user's database permissions.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { DatabasePermission, uniqueArray, type DatabaseUser } from "../../contract";
import { currentClient } from "../settings";
import { SCHEMA_VERSION, checkWith, definedOnly, describeFailure, diffFields, isStatus, sortedSet, stripProvider, type ResourceImpl } from "./base";
import { ReviewAdminResource } from "./resource";
import { databaseUsers, rememberDatabaseUser } from "./shared";

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
  databaseId: z.number().int().positive({ message: "must be a positive integer database id" }),
  userId: z.number().int().positive({ message: "must be a positive integer user id" }),
  permissions: uniqueArray(DatabasePermission)
    .min(1, { message: "must hold at least one permission; to take all of them away, delete the resource" })
    .transform((a) => sortedSet(a)!),
});
type Inputs = z.infer<typeof Inputs>;

interface State extends Inputs {
  /** Whether the user's account is active, as the service reports it. */
  active: boolean;
  username: string | null;
  adopted: boolean;
  schemaVersion: number;
}

const label = (s: { databaseId: number; userId: number }) => `DatabaseUserPermissions of user ${s.userId} on database ${s.databaseId}`;
const hint = {
  forbidden: "the API key needs DB_ADMIN on this database, or org admin of its owner with orgAdminAccess on",
  // E26 answers 404 for an unknown user as well as for an unknown database: the hint names both,
  // where it used to ask only about the database ("user 999999 not found (is the database id right?)").
  notFound: "are the database id and the user id right? the user must be a platform user",
};

function stateOf(inputs: Inputs, live: DatabaseUser, adopted: boolean): State {
  return definedOnly({
    databaseId: inputs.databaseId,
    userId: inputs.userId,
    permissions: sortedSet(live.permissions)!,
    active: live.active,
    username: live.user.username ?? null,
    adopted,
    schemaVersion: SCHEMA_VERSION,
  });
}

async function put(inputs: Inputs): Promise<DatabaseUser> {
  const client = currentClient();
  const live = await client.call(
    "PutDatabaseUser",
    { databaseId: inputs.databaseId, userId: inputs.userId },
    { databasePermissions: inputs.permissions },
  );
  await rememberDatabaseUser(client, inputs.databaseId, inputs.userId, live);
  return live;
}

/** The plugin implementation. */
export const databaseUserPermissionsImpl: ResourceImpl = {
  async check(_olds, news) {
    return checkWith(Inputs, news);
  },

  async diff(_id, olds: State, news: Inputs) {
    // Delete-first: E26 is an upsert, so create-then-delete could remove the grant it just made.
    return diffFields(olds, news, { replaceOn: ["databaseId", "userId"], update: ["permissions"], deleteBeforeReplace: true });
  },

  async create(raw) {
    const inputs = stripProvider(raw) as Inputs;
    try {
      const existing = (await databaseUsers(currentClient(), inputs.databaseId)).get(inputs.userId);
      const live = await put(inputs);
      return { id: `${inputs.databaseId}/${inputs.userId}`, outs: stateOf(inputs, live, !!existing && existing.permissions.length > 0) };
    } catch (err) {
      throw describeFailure(`creating ${label(inputs)}`, err, hint);
    }
  },

  async read(id, props: State) {
    try {
      const live = (await databaseUsers(currentClient(), props.databaseId)).get(props.userId);
      if (!live || live.permissions.length === 0) return {};
      const state = stateOf(props, live, props.adopted);
      return { id, props: state, inputs: { databaseId: state.databaseId, userId: state.userId, permissions: state.permissions } };
    } catch (err) {
      if (isStatus(err, 404)) return {}; // the database itself is gone
      throw describeFailure(`reading ${label(props)}`, err, hint);
    }
  },

  async update(_id, olds: State, raw) {
    const inputs = stripProvider(raw) as Inputs;
    try {
      return { outs: stateOf(inputs, await put(inputs), olds.adopted) };
    } catch (err) {
      throw describeFailure(`updating ${label(inputs)}`, err, hint);
    }
  },

  async delete(_id, props: State) {
    const client = currentClient();
    try {
      await client.call("DeleteDatabaseUser", { databaseId: props.databaseId, userId: props.userId });
    } catch (err) {
      if (!isStatus(err, 404)) throw describeFailure(`deleting ${label(props)}`, err, hint);
    }
    await rememberDatabaseUser(client, props.databaseId, props.userId, undefined);
  },
};

/** One user's permissions on one database. */
export class DatabaseUserPermissions extends ReviewAdminResource {
  declare readonly databaseId: pulumi.Output<number>;
  declare readonly userId: pulumi.Output<number>;
  declare readonly permissions: pulumi.Output<DatabasePermission[]>;
  declare readonly active: pulumi.Output<boolean>;
  declare readonly username: pulumi.Output<string | null>;
  /** True when the user already held permissions on the database when the resource was created. */
  declare readonly adopted: pulumi.Output<boolean>;

  constructor(name: string, args: DatabaseUserPermissionsArgs, opts?: pulumi.CustomResourceOptions) {
    super("DatabaseUserPermissions", name, args, ["active", "username", "adopted", "schemaVersion"], opts);
  }
}
