/**
 * DatabaseUsers: every user's permissions on one database, as a map from user id to permissions.
 * `mode: "authoritative"` sets and removes (E26, E24) so the database equals the map;
 * `mode: "additive"` never removes. `unmanaged` lists users with permissions not in the map.
 * One paged list (E23) per run; refresh writes the live set back into the stored inputs so the
 * next `pulumi preview --diff` shows each user added, changed or removed.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { DatabasePermission, uniqueArray, type DatabaseUser } from "../../contract";
import type { ReviewAdminClient } from "../client";
import { currentClient } from "../settings";
import { ResourceError, SCHEMA_VERSION, UNKNOWN, checkWith, containsUnknown, definedOnly, isStatus, sortedSet, type ResourceImpl } from "./base";
import { mapLimit, rosterCrud, rosterMode, type RosterMode } from "./roster";
import { ReviewAdminResource } from "./resource";
import { currentUser, databaseUsers, rememberDatabaseUser } from "./shared";

/** Inputs of a DatabaseUsers roster. */
export interface DatabaseUsersArgs {
  /** Changing it replaces. */
  databaseId: pulumi.Input<number>;
  mode: pulumi.Input<RosterMode>;
  /** Permissions by user id (written as a string key, e.g. "1003"); each set non-empty. */
  users: pulumi.Input<Record<string, pulumi.Input<pulumi.Input<DatabasePermission>[]>>>;
  /** User ids never removed in authoritative mode. */
  protectedUserIds?: pulumi.Input<pulumi.Input<number>[]>;
  /** Allow taking DB_ADMIN from the key's own user. Default false. */
  allowAdminRemoval?: pulumi.Input<boolean>;
}

const Permissions = uniqueArray(DatabasePermission)
  .min(1, { message: "must hold at least one permission (leave the user out of the map to remove them)" })
  .transform((a) => sortedSet(a)!);

const Inputs = z.strictObject({
  databaseId: z.number().int().positive({ message: "must be a positive integer database id" }),
  mode: rosterMode,
  users: z
    .record(z.string().regex(/^[1-9]\d*$/, { message: "keys must be user ids (positive integers written as strings)" }), Permissions)
    .transform((m) => Object.fromEntries(Object.entries(m).sort(([a], [b]) => Number(a) - Number(b)))),
  protectedUserIds: z.array(z.number().int().positive()).transform((a) => sortedSet(a)!).optional(),
  allowAdminRemoval: z.boolean().optional(),
});
type Inputs = z.infer<typeof Inputs>;

interface LiveUser {
  permissions: DatabasePermission[];
  active: boolean;
  username: string | null;
}

interface State {
  databaseId: number;
  mode: RosterMode;
  /** Live permissions of the users in the map (authoritative: every user with permissions). */
  users: Record<string, LiveUser>;
  /** Users with permissions on the database who are not in the map. */
  unmanaged: ({ userId: number } & LiveUser)[];
  /** User ids in the program's map. */
  managedUserIds: number[];
  protectedUserIds?: number[];
  allowAdminRemoval?: boolean;
  schemaVersion: number;
}

const liveUser = (u: DatabaseUser): LiveUser => ({ permissions: sortedSet(u.permissions)!, active: u.active, username: u.user.username ?? null });

function stateOf(inputs: Pick<Inputs, "databaseId" | "mode" | "protectedUserIds" | "allowAdminRemoval">, managed: number[], live: Map<number, DatabaseUser>): State {
  const managedSet = new Set(managed);
  const users: Record<string, LiveUser> = {};
  const unmanaged: State["unmanaged"] = [];
  for (const [id, u] of [...live].sort(([a], [b]) => a - b)) {
    if (u.permissions.length === 0) continue;
    if (managedSet.has(id) || inputs.mode === "authoritative") users[String(id)] = liveUser(u);
    if (!managedSet.has(id)) unmanaged.push({ userId: id, ...liveUser(u) });
  }
  return definedOnly({
    databaseId: inputs.databaseId,
    mode: inputs.mode,
    users,
    unmanaged,
    managedUserIds: [...managed].sort((a, b) => a - b),
    protectedUserIds: inputs.protectedUserIds,
    allowAdminRemoval: inputs.allowAdminRemoval,
    schemaVersion: SCHEMA_VERSION,
  });
}

interface Plan {
  set: string[];
  remove: string[];
}

function planOf(inputs: Inputs, live: Record<string, LiveUser>): Plan {
  const protectedSet = new Set((inputs.protectedUserIds ?? []).map(String));
  const set = Object.keys(inputs.users).filter((id) => JSON.stringify(live[id]?.permissions) !== JSON.stringify(inputs.users[id]));
  const remove = inputs.mode === "authoritative" ? Object.keys(live).filter((id) => !inputs.users[id] && !protectedSet.has(id)) : [];
  return { set, remove };
}

const label = (s: { databaseId: number }) => `DatabaseUsers of database ${s.databaseId}`;
const hint = {
  forbidden: "the API key needs DB_ADMIN on this database, or org admin of its owner with orgAdminAccess on",
  notFound: "is the database id right?",
};

/** Refuses to take DB_ADMIN from the key's own user, unless allowed. */
async function guardLockout(client: ReviewAdminClient, inputs: Inputs, live: Record<string, LiveUser>, plan: Plan, action: string): Promise<void> {
  if (inputs.allowAdminRemoval) return;
  const losing = [...plan.remove, ...plan.set.filter((id) => !inputs.users[id].includes("DB_ADMIN"))].filter((id) => live[id]?.permissions.includes("DB_ADMIN"));
  if (losing.length === 0) return;
  const me = await currentUser(client);
  if (me && losing.includes(String(me.id))) {
    throw new ResourceError(
      `${action}: refused: it would take DB_ADMIN on database ${inputs.databaseId} from user ${me.id} (${me.email ?? me.username ?? "?"}), the user of the API key in use. Set allowAdminRemoval: true to do it anyway.`,
    );
  }
}

async function reconcile(inputs: Inputs, action: string): Promise<State> {
  const client = currentClient();
  const dbId = inputs.databaseId;
  const everyone = stateOf({ ...inputs, mode: "authoritative" }, [], await databaseUsers(client, dbId)).users;
  const plan = planOf(inputs, everyone);
  await guardLockout(client, inputs, everyone, plan, action);
  await mapLimit(plan.set, 8, async (id) => {
    const userId = Number(id);
    const live = await client.call("PutDatabaseUser", { databaseId: dbId, userId }, { databasePermissions: inputs.users[id] });
    await rememberDatabaseUser(client, dbId, userId, live);
  });
  await mapLimit(plan.remove, 8, async (id) => {
    const userId = Number(id);
    await client.call("DeleteDatabaseUser", { databaseId: dbId, userId }).catch((err) => {
      if (!isStatus(err, 404)) throw err;
    });
    await rememberDatabaseUser(client, dbId, userId, undefined);
  });
  return stateOf(inputs, Object.keys(inputs.users).map(Number), await databaseUsers(client, dbId));
}

function inputsOf(state: State): Inputs {
  return definedOnly({
    databaseId: state.databaseId,
    mode: state.mode,
    users: Object.fromEntries(Object.entries(state.users).map(([id, u]) => [id, u.permissions])),
    protectedUserIds: state.protectedUserIds,
    allowAdminRemoval: state.allowAdminRemoval,
  });
}

/** The plugin implementation. */
export const databaseUsersImpl: ResourceImpl = {
  async check(_olds, news) {
    return checkWith(Inputs, news);
  },

  async diff(_id, olds: State, news: Inputs) {
    // A preview with values not known yet: say it may change, and judge lockout at up.
    if (containsUnknown(news)) return { changes: true, replaces: news.databaseId === olds.databaseId || news.databaseId === (UNKNOWN as any) ? [] : ["databaseId"] };
    if (news.databaseId !== olds.databaseId) return { changes: true, replaces: ["databaseId"], deleteBeforeReplace: true };
    const plan = planOf(news, olds.users);
    const settingsChanged =
      news.mode !== olds.mode ||
      JSON.stringify(news.protectedUserIds ?? null) !== JSON.stringify(olds.protectedUserIds ?? null) ||
      (news.allowAdminRemoval ?? false) !== (olds.allowAdminRemoval ?? false);
    if (plan.set.length || plan.remove.length) await guardLockout(currentClient(), news, olds.users, plan, `updating ${label(news)}`);
    return { changes: plan.set.length + plan.remove.length > 0 || settingsChanged, replaces: [] };
  },

  ...rosterCrud<Inputs, State>({
    label,
    hint,
    idOf: (inputs) => `database/${inputs.databaseId}`,
    reconcile,
    async readLive(props) {
      const state = stateOf(props, props.managedUserIds ?? [], await databaseUsers(currentClient(), props.databaseId));
      return { state, inputs: inputsOf(state) };
    },
    releaseNote: "no longer managed; database permissions stay as they are.",
  }),
};

/** Every user's permissions on one database, authoritative or additive. */
export class DatabaseUsers extends ReviewAdminResource {
  declare readonly databaseId: pulumi.Output<number>;
  declare readonly mode: pulumi.Output<RosterMode>;
  declare readonly users: pulumi.Output<Record<string, LiveUser>>;
  declare readonly unmanaged: pulumi.Output<({ userId: number } & LiveUser)[]>;

  constructor(name: string, args: DatabaseUsersArgs, opts?: pulumi.CustomResourceOptions) {
    super("DatabaseUsers", name, args, ["unmanaged", "managedUserIds", "schemaVersion", "protectedUserIds", "allowAdminRemoval"], opts);
  }
}
