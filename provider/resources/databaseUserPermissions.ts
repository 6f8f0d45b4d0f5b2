/**
 * DatabaseUserPermissions: one user's permissions on one database (E23 to E26).
 */
import * as pulumi from "@pulumi/pulumi";
import { say } from "./support/messages";
import { z } from "zod";
import { administers, takesAdmin } from "../../contract/grants";
import type { DatabasePermission, DatabaseUser } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { definedOnly } from "../util";
import { DatabaseId, DatabasePermissions, UserId } from "./support/inputs";
import { grantKey } from "./support/handover";
import { argsMatch, containsUnknown, defineResource, diffFields, outputsMatch, stateHolds } from "./support/lifecycle";
import { assertAdminRemovalAllowed, guardAdminLoss, refusalAsFailure } from "./support/lockout";
import { sameSet, sortedSet } from "../normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";
import { listedDatabaseUsers, removeGrant, setGrant } from "../access/databaseGrants";
import { CalendarDay, expiryStep, standingOf, type Standing } from "./support/expiry";

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
export interface DatabaseUserPermissionsState {
  databaseId: number;
  userId: number;
  /** The user's live permissions on the database, sorted. */
  permissions: DatabasePermission[];
  allowAdminRemoval?: boolean;
  /** Whether the user's account is active, as the service reports it. */
  active: boolean;
  username: string | null;
  /** True when the user already held permissions on the database when the resource was created. */
  adopted: boolean;
  /** The declared end date (absent in older states, and for grants without one). */
  expiresOn?: string;
  /** The end date, when it falls within reviewadmin:expiringSoonDays (default 14) of the last up or refresh. */
  expiringSoon?: string;
  /** Set once up has removed the grant because its end date passed (or found it gone): that date. */
  expiredOn?: string;
}
stateHolds<DatabaseUserPermissionsState, Inputs>(true);

const label = (s: { databaseId: number; userId: number }) => `DatabaseUserPermissions of user ${s.userId} on database ${s.databaseId}`;

function stateOf(inputs: Inputs, live: DatabaseUser, adopted: boolean, st: Standing = "active"): DatabaseUserPermissionsState {
  return definedOnly({
    databaseId: inputs.databaseId,
    userId: inputs.userId,
    allowAdminRemoval: inputs.allowAdminRemoval,
    permissions: sortedSet(live.permissions),
    active: live.active,
    username: live.user.username ?? null,
    adopted,
    expiresOn: inputs.expiresOn,
    expiringSoon: st === "soon" ? inputs.expiresOn : undefined,
  });
}

/** The state of a grant whose end date has passed: nothing held, and when it ended. */
function expiredState(
  inputs: Inputs,
  base: Pick<DatabaseUserPermissionsState, "active" | "username" | "adopted">,
): DatabaseUserPermissionsState {
  return definedOnly({
    databaseId: inputs.databaseId,
    userId: inputs.userId,
    allowAdminRemoval: inputs.allowAdminRemoval,
    permissions: [],
    active: base.active,
    username: base.username,
    adopted: base.adopted,
    expiresOn: inputs.expiresOn,
    expiredOn: inputs.expiresOn,
  });
}

/** True when the change takes DB_ADMIN from the user without allowAdminRemoval. */
function losesAdmin(olds: DatabaseUserPermissionsState, news: Inputs): boolean {
  return takesAdmin("database", olds.permissions, news.permissions) && !news.allowAdminRemoval;
}

/** The database as anti-lockout names it. */
const scopeOf = (s: { databaseId: number }) => ({ kind: "database" as const, id: s.databaseId });

/**
 * Anti-lockout of a create: adopting a grant holding DB_ADMIN with permissions that lack it would
 * overwrite it (E26) and take DB_ADMIN from the key's own user or from the database's last
 * DB_ADMIN; refused unless allowAdminRemoval. Only a create without DB_ADMIN lists the database's users.
 */
async function guardCreate(client: ReviewAdminClient, inputs: Inputs, action: string): Promise<void> {
  if (administers("database", inputs.permissions) || inputs.allowAdminRemoval) return;
  const existing = (await listedDatabaseUsers(client, inputs.databaseId)).get(inputs.userId);
  if (takesAdmin("database", existing?.permissions, inputs.permissions))
    await assertAdminRemovalAllowed(client, scopeOf(inputs), inputs.userId, action);
}

/** Sets the user's permissions (E26 overwrites). */
const setPermissions = (client: ReviewAdminClient, inputs: Inputs): Promise<DatabaseUser> =>
  setGrant(client, inputs.databaseId, inputs.userId, inputs.permissions);

/** The inputs a state stands for (refresh writes them back). */
function inputsOfState(s: DatabaseUserPermissionsState): Inputs {
  return definedOnly({
    databaseId: s.databaseId,
    userId: s.userId,
    permissions: s.permissions,
    allowAdminRemoval: s.allowAdminRemoval,
    expiresOn: s.expiresOn,
  });
}

/** The DatabaseUserPermissions implementation run by the plugin. */
export const databaseUserPermissions = defineResource<Inputs, DatabaseUserPermissionsState>({
  kind: "DatabaseUserPermissions",
  inputs: Inputs,
  outputs: outputsMatch<DatabaseUserPermissionsState>()([
    "databaseId",
    "userId",
    "permissions",
    "allowAdminRemoval",
    "active",
    "username",
    "adopted",
    "expiresOn",
    "expiringSoon",
    "expiredOn",
  ]),
  label,
  subject: (s) => ({ scope: { kind: "database", id: s.databaseId }, subject: { userId: s.userId } }),
  idOf: (s) => `${s.databaseId}/${s.userId}`,
  claims: (i) => [grantKey(i.databaseId, i.userId)],
  holds: (s) => [grantKey(s.databaseId, s.userId)],

  // Anti-lockout of a create at preview, as diff does for an update; inputs not known yet are judged at up.
  async check(inputs, olds, { client, action }) {
    if (olds.databaseId !== undefined || containsUnknown(inputs)) return { failures: [] };
    return { failures: await refusalAsFailure("permissions", () => guardCreate(client, inputs, action)) };
  },
  // Create-first: a failed create (a mistyped user id) must not cost the old grant. A replace
  // always changes the database or the user, and a forced replace of the same grant finds it
  // claimed at delete (handover.ts), so the old delete never removes what the new one made.
  async diff(olds, news, { client, action, refresh }) {
    const result = diffFields(olds, news, {
      replaceOn: ["databaseId", "userId"],
    });
    const step =
      result.replaces?.length || containsUnknown(news.expiresOn)
        ? undefined
        : await expiryStep(client, action, `user ${olds.userId}`, news.expiresOn, olds.expiredOn, refresh);
    // Removed once; a later up with the date still past has nothing to do.
    if (step === "done") return { changes: false };
    if (step === "remove" && takesAdmin("database", olds.permissions, undefined) && !news.allowAdminRemoval)
      await assertAdminRemovalAllowed(client, scopeOf(olds), olds.userId, action);
    // Past the end: removed. The end moved later (or went) after up removed the grant: granted again.
    if (step === "remove" || step === "restore") return { changes: true, replaces: [] };
    // Anti-lockout at preview, only when the change takes DB_ADMIN away.
    if (!result.replaces?.length && Array.isArray(news.permissions) && !containsUnknown(news.permissions) && losesAdmin(olds, news)) {
      await assertAdminRemovalAllowed(client, scopeOf(olds), olds.userId, action);
    }
    return result;
  },

  async create(inputs, { client, action }) {
    const st = await standingOf(client, inputs.expiresOn);
    if (st === "expired") {
      say.warn(`${action}: expired on ${inputs.expiresOn}: nothing granted`);
      return expiredState(inputs, { active: false, username: null, adopted: false });
    }
    await guardCreate(client, inputs, action);
    const existing = (await listedDatabaseUsers(client, inputs.databaseId)).get(inputs.userId);
    const adopted = !!existing && existing.permissions.length > 0;
    if (adopted) say.info(`${action}: adopted the user's existing permissions (${sortedSet(existing.permissions).join(", ")})`);
    // Adopting the very permissions the program declares writes nothing: E26 would only set what
    // is there, and an exported program's first up must send no write (cli/export).
    const live = adopted && sameSet(existing.permissions, inputs.permissions) ? existing : await setPermissions(client, inputs);
    return stateOf(inputs, live, adopted, st);
  },

  async read(state, { client }) {
    const live = (await listedDatabaseUsers(client, state.databaseId)).get(state.userId);
    const held = !!live && live.permissions.length > 0;
    // An expired grant stays in state while nothing is held; granted again by hand, the next up removes it again.
    if (state.expiredOn && !held) return { state };
    if (!held) return undefined;
    const fresh = stateOf(state, live, state.adopted, await standingOf(client, state.expiresOn));
    return { state: fresh, inputs: inputsOfState(fresh) };
  },

  async update(olds, news, { client, action }) {
    const st = await standingOf(client, news.expiresOn);
    if (st === "expired") {
      if (olds.expiredOn) return expiredState(news, olds);
      const remove = () => {
        say.info(`${action}: expired on ${news.expiresOn}: removing the user's permissions on the database`);
        return removeGrant(client, news.databaseId, news.userId);
      };
      const guarded = takesAdmin("database", olds.permissions, undefined) && !news.allowAdminRemoval;
      await (guarded ? guardAdminLoss(client, scopeOf(news), [news.userId], action, remove) : remove());
      return expiredState(news, olds);
    }
    const set = () => setPermissions(client, news);
    const live = await (losesAdmin(olds, news) ? guardAdminLoss(client, scopeOf(news), [news.userId], action, set) : set());
    return stateOf(news, live, olds.adopted, st);
  },

  async delete(state, { client, action }) {
    if (state.expiredOn) return; // removed when it expired; what is there now was granted by someone else
    const remove = () => {
      if (state.adopted) say.warn(`${action}: removing the permissions user ${state.userId} held before this program adopted them`);
      return removeGrant(client, state.databaseId, state.userId);
    };
    const guarded = takesAdmin("database", state.permissions, undefined) && !state.allowAdminRemoval;
    await (guarded ? guardAdminLoss(client, scopeOf(state), [state.userId], action, remove) : remove());
  },
});

/**
 * One user's permissions on one database. Setting overwrites (E26 is an upsert), so a user who
 * already holds permissions is adopted (`adopted: true`). A change of database or user replaces
 * create-first: the new grant is set before the old one is removed, so a failed create (a
 * mistyped user id) does not cost the old grant. Delete removes the user's database permissions
 * (E24).
 */
export interface DatabaseUserPermissions extends Outputs<DatabaseUserPermissionsState> {}
export class DatabaseUserPermissions extends ReviewAdminResource {
  constructor(name: string, args: DatabaseUserPermissionsArgs, opts?: pulumi.CustomResourceOptions) {
    super(databaseUserPermissions.definition, name, args, opts);
  }
}
