/**
 * DatabaseUserPermissions: one user's permissions on one database (E23 to E26).
 */
import type * as pulumi from "@pulumi/pulumi";
import { say } from "./support/messages";
import { z } from "zod";
import { administers, databaseScope, takesAdmin, type Grant } from "../../contract/grants";
import type { DatabasePermission, DatabaseUser } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { definedOnly } from "../util";
import { DatabaseId, DatabasePermissions, UserId } from "./support/inputs";
import { grantKey } from "./support/handover";
import { argsMatch, outputsMatch, stateHolds } from "./support/lifecycle";
import { assertAdminRemovalAllowed, guardAdminLoss } from "./support/lockout";
import { sameSet, sortedSet } from "../normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";
import { listedDatabaseUsers, removeGrant, setGrant } from "../access/databaseGrants";
import { planOne, type LiveGrant } from "../access/plan";
import { CalendarDay } from "./support/expiry";
import { personGrant, type OwnFields } from "./support/personGrant";
import type { PersonState } from "./support/personTypes";

/** Inputs of a DatabaseUserPermissions. */
export interface DatabaseUserPermissionsArgs {
  /** The database. Changing it replaces. */
  databaseId: pulumi.Input<number>;
  /** The user. Changing it replaces. */
  userId: pulumi.Input<number>;
  /** The whole set of the user's permissions on the database (at least one). */
  permissions: pulumi.Input<pulumi.Input<DatabasePermission>[]>;
  /** Allow taking DB_ADMIN from the key's own user (a create that adopts their grant, a change or a delete). Default false. */
  allowAdminRemoval?: pulumi.Input<boolean>;
  /**
   * "YYYY-MM-DD" (UTC): the grant ends at the start of this day. From then on up removes the
   * user's permissions on the database (the state keeps `expiredOn`), anti-lockout still holding.
   */
  expiresOn?: pulumi.Input<string>;
}

const Inputs = z.strictObject({
  databaseId: DatabaseId,
  userId: UserId,
  permissions: DatabasePermissions.refine((a) => a.length > 0, {
    message: "must hold at least one permission; to take all of them away, delete the resource",
  }),
  allowAdminRemoval: z.boolean().optional(),
  expiresOn: CalendarDay.optional(),
});
type Inputs = z.infer<typeof Inputs>;
argsMatch<DatabaseUserPermissionsArgs, z.input<typeof Inputs>>(true);

/** What a DatabaseUserPermissions stores: its inputs, and what the service says of the user. */
export interface DatabaseUserPermissionsState extends PersonState {
  databaseId: number;
  userId: number;
  /** The user's live permissions on the database, sorted. */
  permissions: DatabasePermission[];
  /** Whether the user's account is active, as the service reports it. */
  active: boolean;
  username: string | null;
  /** True when the user already held permissions on the database when the resource was created. */
  adopted: boolean;
}
stateHolds<DatabaseUserPermissionsState, Inputs>(true);

/** The state of the user as listed; `live` undefined: the end date has passed and nothing is held. */
function stateOf(
  inputs: Inputs,
  live: DatabaseUser | undefined,
  adopted: boolean,
  olds?: Pick<DatabaseUserPermissionsState, "active" | "username">,
): DatabaseUserPermissionsState {
  const kept = { databaseId: inputs.databaseId, userId: inputs.userId, allowAdminRemoval: inputs.allowAdminRemoval, adopted };
  if (!live) {
    const { active = false, username = null } = olds ?? {};
    return definedOnly({ ...kept, permissions: [], active, username, expiresOn: inputs.expiresOn });
  }
  return definedOnly({
    ...kept,
    permissions: sortedSet(live.permissions),
    active: live.active,
    username: live.user.username ?? null,
    expiresOn: inputs.expiresOn,
  });
}

/** The user's grant as the planner and anti-lockout see it. */
const grantOf = (s: { databaseId: number; userId: number }, permissions: DatabasePermission[]): LiveGrant => ({
  scope: databaseScope(s),
  subject: { userId: s.userId },
  permissions,
});

/** The grant the inputs declare. */
const declared = (i: Inputs): Grant => ({ ...grantOf(i, i.permissions), window: { expiresOn: i.expiresOn } });

/** Sets the user's permissions (`PUT /v1/databases/{databaseId}/users/{userId}` overwrites). */
const setPermissions = (client: ReviewAdminClient, inputs: Inputs): Promise<DatabaseUser> =>
  setGrant(client, inputs.databaseId, inputs.userId, inputs.permissions);

/** Removes the user's permissions (saying `note` first), in turn with the database's other admin removals when it takes DB_ADMIN (lockout.ts). */
async function removeUser(
  client: ReviewAdminClient,
  s: DatabaseUserPermissionsState,
  allow: boolean | undefined,
  action: string,
  note: () => void,
) {
  const remove = () => {
    note();
    return removeGrant(client, s.databaseId, s.userId);
  };
  const guarded = administers("database", s.permissions) && !allow;
  await (guarded ? guardAdminLoss(client, databaseScope(s), [s.userId], action, remove) : remove());
}

/** The user as the run lists the database's users. */
const listed = async (client: ReviewAdminClient, s: { databaseId: number; userId: number }) =>
  (await listedDatabaseUsers(client, s.databaseId)).get(s.userId);

/** The DatabaseUserPermissions implementation run by the plugin (the steps: support/personGrant.ts). */
export const databaseUserPermissions = personGrant<Inputs, DatabaseUserPermissionsState, DatabaseUser>({
  kind: "DatabaseUserPermissions",
  inputs: Inputs,
  outputs: outputsMatch<OwnFields<DatabaseUserPermissionsState>>()([
    "databaseId",
    "userId",
    "permissions",
    "active",
    "username",
    "adopted",
  ]),
  label: (s) => `DatabaseUserPermissions of user ${s.userId} on database ${s.databaseId}`,
  idOf: (s) => `${s.databaseId}/${s.userId}`,
  claims: (i) => [grantKey(i.databaseId, i.userId)],
  holds: (s) => [grantKey(s.databaseId, s.userId)],

  scope: databaseScope,
  // Create-first: a failed create (a mistyped user id) must not cost the old grant. A replace
  // always changes the database or the user, and a forced replace of the same grant finds it
  // claimed at delete (handover.ts), so the old delete never removes what the new one made.
  diffRule: () => ({ replaceOn: ["databaseId", "userId"] }),
  person: (s) => ({ userId: s.userId }),
  grant: declared,
  heldGrant: (s) => (s.permissions.length ? grantOf(s, s.permissions) : undefined),
  find: listed,
  holding: (u) => u.permissions.length > 0,
  stateOf,
  // Inputs not known yet are judged at up.
  adoptionGuard: {
    known: (i) => [i],
    // A list that fails (a key without access: 403) finds nothing here: up lists again and words the error.
    find: async (client, i) => {
      const u = await listed(client, i).catch(() => undefined);
      return u && grantOf(i, u.permissions);
    },
  },
  words: { noneMade: "nothing granted" },

  async create(inputs, { client, action }) {
    const existing = await listed(client, inputs);
    const have = existing && grantOf(inputs, existing.permissions);
    // Adopting a grant holding DB_ADMIN with permissions lacking it would take it (`PUT /v1/databases/{databaseId}/users/{userId}` overwrites): refused unless allowAdminRemoval.
    if (!inputs.allowAdminRemoval && planOne(declared(inputs), have, { scope: databaseScope(inputs) }).losing)
      await assertAdminRemovalAllowed(client, databaseScope(inputs), inputs.userId, action);
    const adopted = !!existing && existing.permissions.length > 0;
    if (adopted) say.info(`${action}: adopted the user's existing permissions (${sortedSet(existing.permissions).join(", ")})`);
    // Adopting the very permissions the program declares writes nothing: `PUT /v1/databases/{databaseId}/users/{userId}` would only set what
    // is there, and an exported program's first up must send no write (cli/export).
    const live = adopted && sameSet(existing.permissions, inputs.permissions) ? existing : await setPermissions(client, inputs);
    return stateOf(inputs, live, adopted);
  },

  async update(olds, news, { client, action }) {
    const set = () => setPermissions(client, news);
    const losesAdmin = takesAdmin("database", olds.permissions, news.permissions) && !news.allowAdminRemoval;
    const live = await (losesAdmin ? guardAdminLoss(client, databaseScope(news), [news.userId], action, set) : set());
    return stateOf(news, live, olds.adopted);
  },

  async expire(olds, news, { client, action }) {
    await removeUser(client, olds, news.allowAdminRemoval, action, () =>
      say.info(`${action}: expired on ${news.expiresOn}: removing the user's permissions on the database`),
    );
  },

  async remove(state, { client, action }) {
    await removeUser(client, state, state.allowAdminRemoval, action, () => {
      if (state.adopted) say.warn(`${action}: removing the permissions user ${state.userId} held before this program adopted them`);
    });
  },
});

/**
 * One user's permissions on one database. Setting overwrites (the API's set is an upsert), so a user who
 * already holds permissions is adopted (`adopted: true`). A change of database or user replaces
 * create-first: the new grant is set before the old one is removed, so a failed create (a
 * mistyped user id) does not cost the old grant. Delete removes the user's database permissions.
 */
export interface DatabaseUserPermissions extends Outputs<DatabaseUserPermissionsState> {}
export class DatabaseUserPermissions extends ReviewAdminResource {
  constructor(name: string, args: DatabaseUserPermissionsArgs, opts?: pulumi.CustomResourceOptions) {
    super(databaseUserPermissions.definition, name, args, opts);
  }
}
