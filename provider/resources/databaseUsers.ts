/**
 * DatabaseUsers: every user's permissions on one database, as a map from user id to permissions
 * (E23, E24, E26).
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { DatabasePermission, DatabaseUser } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { ignore404 } from "../failures";
import { definedOnly, mapLimit } from "../util";
import { DatabaseId, DatabasePermissions, UserId } from "./support/inputs";
import { argsMatch, containsUnknown, outputsMatch, UNKNOWN } from "./support/lifecycle";
import { grantKey, holderOf } from "./support/handover";
import { assertKeepsOwnDatabaseAdmin } from "./support/lockout";
import { sortedSet } from "../normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";
import {
  adoptionNote,
  DeclaredElsewhere,
  onUnmanagedSchema,
  progressOf,
  rosterMode,
  rosterResource,
  type RosterInternals,
} from "./support/roster";
import type { OnUnmanaged, RosterMode } from "./support/rosterMode";
import { enforceGate, gateFindings } from "./support/unmanagedGate";
import { listedDatabaseUsers, rememberDatabaseUser } from "./support/runCache";
import {
  CalendarDay,
  checkWindow,
  dateFields,
  dayIfDated,
  endsNow,
  expiredLine,
  mapOnDay,
  warnExpiringSoon,
  type MapOnDay,
  type Window,
} from "./support/expiry";

/** One user's entry with dates: the permissions, and the window they hold in (support/expiry.ts). */
export interface DatabaseUserEntry {
  permissions: pulumi.Input<pulumi.Input<DatabasePermission>[]>;
  /** "YYYY-MM-DD" (UTC): access ends at the start of this day, and up then removes it, even in additive mode. */
  expiresOn?: pulumi.Input<string>;
  /** "YYYY-MM-DD" (UTC): the first day of access; before it the entry counts as not declared. */
  startsOn?: pulumi.Input<string>;
}

/** Inputs of a DatabaseUsers roster. */
export interface DatabaseUsersArgs {
  /** Changing it replaces. */
  databaseId: pulumi.Input<number>;
  mode: pulumi.Input<RosterMode>;
  /**
   * Permissions by user id (written as a string key, e.g. "1003"); each set non-empty. An entry is
   * the permissions, or `{ permissions, expiresOn?, startsOn? }` for access with an end date.
   */
  users: pulumi.Input<Record<string, pulumi.Input<pulumi.Input<DatabasePermission>[] | DatabaseUserEntry>>>;
  /** User ids never removed in authoritative mode. */
  protectedUserIds?: pulumi.Input<pulumi.Input<number>[]>;
  /** Allow taking DB_ADMIN from the key's own user. Default false. */
  allowAdminRemoval?: pulumi.Input<boolean>;
  /**
   * The drift gate for users with permissions on the database the program does not declare
   * (additive mode): "failOnPrivileged" (default) fails preview and up while one of them holds
   * DB_ADMIN, "failOnAny" while there is any, "report" warns, "ignore" says nothing.
   */
  onUnmanaged?: pulumi.Input<OnUnmanaged>;
  /** User ids the program does not declare and accepts as they are (the drift gate passes them). */
  knownExceptions?: pulumi.Input<pulumi.Input<number>[]>;
}

const Permissions = DatabasePermissions.refine((a) => a.length > 0, {
  message: "must hold at least one permission (leave the user out of the map to remove them)",
});

const Dated = z
  .strictObject({ permissions: Permissions, expiresOn: CalendarDay.optional(), startsOn: CalendarDay.optional() })
  .superRefine((w, ctx) => checkWindow(w, ctx))
  // Without dates the entry is stored as the bare permissions, as before dates existed.
  .transform((e) => (e.expiresOn || e.startsOn ? definedOnly(e) : e.permissions));
type Entry = DatabasePermission[] | ({ permissions: DatabasePermission[] } & Window);
/** An entry: the bare permissions (the older form), or permissions with dates; each problem names its field. */
const Entry = z.unknown().transform((v, ctx): Entry => {
  const r = Array.isArray(v) ? Permissions.safeParse(v) : Dated.safeParse(v);
  if (r.success) return r.data as Entry;
  for (const issue of r.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path as (string | number)[] });
  return z.NEVER;
});
const permissionsOf = (e: Entry): DatabasePermission[] => (Array.isArray(e) ? e : e.permissions);
const windowOf = (e: Entry): Window => (Array.isArray(e) ? {} : e);

const Inputs = z.strictObject({
  databaseId: DatabaseId,
  mode: rosterMode,
  // Keys checked here, not by a key schema: zod words a bad key only "Invalid key in record".
  users: z.record(z.string(), Entry).transform((m, ctx) => {
    for (const key of Object.keys(m)) {
      if (!/^[1-9]\d*$/.test(key)) {
        const rule = `each key must be a user id: a positive integer written as a string, e.g. "1003"`;
        ctx.addIssue({ code: "custom", message: `'${key}' is not a user id (${rule})`, path: [key] });
      }
    }
    return Object.fromEntries(Object.entries(m).sort(([a], [b]) => Number(a) - Number(b))) as Record<string, Entry>;
  }),
  protectedUserIds: z
    .array(UserId)
    .transform((a) => sortedSet(a))
    .optional(),
  allowAdminRemoval: z.boolean().optional(),
  onUnmanaged: onUnmanagedSchema,
  knownExceptions: z
    .array(UserId)
    .transform((a) => sortedSet(a))
    .optional(),
  declaredElsewhere: DeclaredElsewhere,
});
type Inputs = z.infer<typeof Inputs>;
argsMatch<DatabaseUsersArgs & RosterInternals, z.input<typeof Inputs>>(true);

/** A user's permissions on the database, as the roster sees them live. */
export interface LiveUser {
  permissions: DatabasePermission[];
  active: boolean;
  username: string | null;
}

/** What a DatabaseUsers roster stores. */
export interface DatabaseUsersState {
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
  onUnmanaged?: OnUnmanaged;
  knownExceptions?: number[];
  /** What the rest of the program declared on this database at the last up (declarations.ts). */
  declaredElsewhere?: Record<string, string>;
  /** End dates the map declares, by user id (absent in older states). */
  expiresOn?: Record<string, string>;
  /** Users whose access ends within reviewadmin:expiringSoonDays (default 14) of the last up or refresh: user id -> end date. */
  expiringSoon?: Record<string, string>;
  /** Users whose end date has passed, whose access up removed (or finds gone): user id -> end date. */
  expired?: Record<string, string>;
}

const liveUser = (u: DatabaseUser): LiveUser => ({
  permissions: sortedSet(u.permissions),
  active: u.active,
  username: u.user.username ?? null,
});

type Settings = Pick<
  Inputs,
  "databaseId" | "mode" | "protectedUserIds" | "allowAdminRemoval" | "onUnmanaged" | "knownExceptions" | "declaredElsewhere"
>;

function stateOf(inputs: Settings, managed: number[], live: Map<number, DatabaseUser>): DatabaseUsersState {
  const managedSet = new Set(managed);
  const users: Record<string, LiveUser> = {};
  const unmanaged: DatabaseUsersState["unmanaged"] = [];
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
    onUnmanaged: inputs.onUnmanaged,
    knownExceptions: inputs.knownExceptions,
    declaredElsewhere: inputs.declaredElsewhere,
  });
}

/** What the drift gate stops on (unmanagedGate.ts): users of `unmanaged` holding DB_ADMIN (or, with failOnAny, any). */
function gate(settings: Settings, unmanaged: DatabaseUsersState["unmanaged"]): string[] {
  const holders = unmanaged.map((u) => ({
    who: `user ${u.userId}${u.username ? ` (${u.username})` : ""}`,
    keys: [grantKey(settings.databaseId, u.userId)],
    exception: u.userId,
    permissions: u.permissions,
  }));
  return gateFindings(settings, holders, (p) => p === "DB_ADMIN");
}

const ACCEPT = "Declare them in the roster's users, or list their user ids in knownExceptions to accept them as they are";

/** The inputs as they stand on one day: only the entries in their window, as bare permissions. */
type Current = Omit<Inputs, "users"> & { users: Record<string, DatabasePermission[]> };

/** The map on `day`: entries past their end or before their start count as not declared (support/expiry.ts). */
function onDay(inputs: Inputs, day: string | undefined): MapOnDay<Entry> & { now: Current } {
  const m = mapOnDay(inputs.users, windowOf, day);
  const users = Object.fromEntries(Object.entries(m.current).map(([id, e]) => [id, permissionsOf(e)]));
  return { ...m, now: { ...inputs, users } };
}

/** Today by the service's clock, asked only when an entry has a date. */
const dayFor = (client: ReviewAdminClient, inputs: Inputs) => dayIfDated(client, Object.values(inputs.users).map(windowOf));

interface Plan {
  set: string[];
  remove: string[];
  /** Users the map leaves out whom another resource of this run declares, with that resource. */
  handedOver: [string, string][];
}

/** Who to set and remove; authoritative removals spare `protectedUserIds` and grants another resource of this run declares. */
function planOf(inputs: Current, live: Record<string, LiveUser>, expired: Record<string, string> = {}): Plan {
  const protectedSet = new Set((inputs.protectedUserIds ?? []).map(String));
  const set = Object.keys(inputs.users).filter((id) => JSON.stringify(live[id]?.permissions) !== JSON.stringify(inputs.users[id]));
  const remove: string[] = [];
  const handedOver: [string, string][] = [];
  if (inputs.mode === "authoritative") {
    for (const id of Object.keys(live)) {
      if (inputs.users[id] || protectedSet.has(id)) continue;
      const holder = holderOf([grantKey(inputs.databaseId, id)], inputs.declaredElsewhere);
      if (holder) handedOver.push([id, holder]);
      else remove.push(id);
    }
  }
  // Expired entries go even from an additive roster: past its end a grant is not merely unmanaged.
  for (const id of Object.keys(expired)) if (live[id] && !remove.includes(id)) remove.push(id);
  return { set, remove, handedOver };
}

const label = (s: { databaseId: number }) => `DatabaseUsers of database ${s.databaseId}`;

/** Refuses to take DB_ADMIN from the key's own user, unless allowed. */
async function guardLockout(
  client: ReviewAdminClient,
  inputs: Current,
  live: Record<string, LiveUser>,
  plan: Plan,
  action: string,
): Promise<void> {
  if (inputs.allowAdminRemoval) return;
  const losing = [...plan.remove, ...plan.set.filter((id) => !inputs.users[id]!.includes("DB_ADMIN"))].filter((id) =>
    live[id]?.permissions.includes("DB_ADMIN"),
  );
  await assertKeepsOwnDatabaseAdmin(client, inputs.databaseId, losing.map(Number), action);
}

async function reconcile(declared: Inputs, client: ReviewAdminClient, action: string, creating: boolean): Promise<DatabaseUsersState> {
  const dbId = declared.databaseId;
  const everyone = stateOf({ ...declared, mode: "authoritative" }, [], await listedDatabaseUsers(client, dbId)).users;
  const dated = onDay(declared, await dayFor(client, declared));
  const inputs = dated.now;
  const plan = planOf(inputs, everyone, dated.expired);
  await guardLockout(client, inputs, everyone, plan, action);
  for (const [id, holder] of plan.handedOver)
    pulumi.log.info(`${action}: left user ${id} in place: ${holder} declares their permissions in this program`);
  const note = creating
    ? adoptionNote(
        action,
        "users' permissions",
        Object.keys(inputs.users).filter((id) => everyone[id]),
      )
    : undefined;
  if (note) pulumi.log.info(note);
  for (const id of Object.keys(dated.expired).filter((e) => everyone[e]))
    pulumi.log.info(`${action}: user ${id}: expired on ${dated.expired[id]}, removing their permissions`);
  const wrote = progressOf(action, plan.set.length + plan.remove.length, "users");
  await mapLimit(plan.set, 8, async (id) => {
    const userId = Number(id);
    const live = await client.call("PutDatabaseUser", { databaseId: dbId, userId }, { databasePermissions: inputs.users[id]! });
    await rememberDatabaseUser(client, dbId, userId, live);
    wrote();
  });
  await mapLimit(plan.remove, 8, async (id) => {
    const userId = Number(id);
    await client.call("DeleteDatabaseUser", { databaseId: dbId, userId }).catch(ignore404);
    await rememberDatabaseUser(client, dbId, userId, undefined);
    wrote();
  });
  const state = withDates(stateOf(inputs, Object.keys(declared.users).map(Number), await listedDatabaseUsers(client, dbId)), dated);
  // The diff judged the state of the last run; who turned up since is reported here, and gated at the next preview.
  enforceGate(
    action,
    { ...inputs, onUnmanaged: inputs.onUnmanaged === "ignore" ? "ignore" : "report" },
    gate(inputs, state.unmanaged),
    ACCEPT,
  );
  return state;
}

/** The state with the map's dates: what it declares, what expires soon and what has expired. */
function withDates(state: DatabaseUsersState, dated: Pick<MapOnDay<unknown>, "ends" | "soon" | "expired">): DatabaseUsersState {
  return definedOnly({ ...state, ...dateFields(dated) });
}

function inputsOf(state: DatabaseUsersState): Inputs {
  const end = state.expiresOn ?? {};
  return definedOnly({
    databaseId: state.databaseId,
    mode: state.mode,
    users: Object.fromEntries(
      Object.entries(state.users).map(([id, u]) => [id, end[id] ? { permissions: u.permissions, expiresOn: end[id] } : u.permissions]),
    ),
    protectedUserIds: state.protectedUserIds,
    allowAdminRemoval: state.allowAdminRemoval,
    onUnmanaged: state.onUnmanaged,
    knownExceptions: state.knownExceptions,
    declaredElsewhere: state.declaredElsewhere,
  });
}

/** The DatabaseUsers implementation run by the plugin. */
export const databaseUsers = rosterResource<Inputs, DatabaseUsersState>({
  kind: "DatabaseUsers",
  inputs: Inputs,
  outputs: outputsMatch<DatabaseUsersState>()([
    "databaseId",
    "mode",
    "users",
    "unmanaged",
    "managedUserIds",
    "protectedUserIds",
    "allowAdminRemoval",
    "onUnmanaged",
    "knownExceptions",
    "declaredElsewhere",
    "expiresOn",
    "expiringSoon",
    "expired",
  ]),
  label,
  idOf: (s) => `database/${s.databaseId}`,
  // Authoritative removals hand over, and the drift gate accepts, grants the program declares elsewhere.
  handsOver: (i) => (i.mode === "authoritative" || i.onUnmanaged !== "ignore" ? `grant:${i.databaseId}:` : undefined),
  claims: (i) => Object.keys(i.users).map((id) => grantKey(i.databaseId, id)),

  async diff(olds, news, { client, action, refresh }) {
    // A preview with values not known yet: say it may change, and judge lockout at up.
    if (containsUnknown(news)) {
      const same = news.databaseId === olds.databaseId || (news.databaseId as unknown) === UNKNOWN;
      return { changes: true, replaces: same ? [] : ["databaseId"] };
    }
    if (news.databaseId !== olds.databaseId) return { changes: true, replaces: ["databaseId"], deleteBeforeReplace: true };
    const dated = onDay(news, await dayFor(client, news));
    const plan = planOf(dated.now, olds.users, dated.expired);
    // Said where the drift gate and lockout speak: the preview's messages on this resource.
    for (const id of Object.keys(dated.expired).filter((e) => olds.users[e]))
      pulumi.log.warn(expiredLine(action, `user ${id}`, dated.expired[id]!));
    if (!refresh && dated.day) warnExpiringSoon(action, dated.soon, dated.day, (id) => `user ${id}`);
    const settingsChanged =
      JSON.stringify(dated.ends) !== JSON.stringify(olds.expiresOn ?? {}) ||
      news.mode !== olds.mode ||
      JSON.stringify(news.protectedUserIds ?? null) !== JSON.stringify(olds.protectedUserIds ?? null) ||
      (news.allowAdminRemoval ?? false) !== (olds.allowAdminRemoval ?? false);
    // The drift gate, on who the last run or refresh found, with the program's settings (unmanagedGate.ts).
    const found = gate(news, olds.unmanaged ?? []);
    if (refresh && found.length) return { changes: true, replaces: [] };
    enforceGate(action, news, found, ACCEPT);
    if (plan.set.length || plan.remove.length) await guardLockout(client, dated.now, olds.users, plan, action);
    return { changes: plan.set.length + plan.remove.length > 0 || settingsChanged, replaces: [] };
  },

  reconcile: (inputs, { client, action }, creating) => reconcile(inputs, client, action, creating),
  async readLive(state, { client, action }) {
    const listed = stateOf(state, state.managedUserIds ?? [], await listedDatabaseUsers(client, state.databaseId));
    // What expires soon is counted again from the stored end dates, so a refresh keeps the output current.
    const fresh = withDates(listed, await endsNow(client, state.expiresOn));
    const found = gate(fresh, fresh.unmanaged);
    if (found.length && fresh.onUnmanaged !== "ignore") enforceGate(action, { ...fresh, onUnmanaged: "report" }, found, ACCEPT);
    return { state: fresh, inputs: inputsOf(fresh) };
  },
  releaseNote: "no longer managed; database permissions stay as they are.",
});

/**
 * Every user's permissions on one database, as a map from user id to permissions.
 * `mode: "authoritative"` sets and removes (E26, E24) so the database equals the map, except
 * `protectedUserIds`; `mode: "additive"` never removes. `unmanaged` lists users with permissions
 * not in the map. One paged list (E23) per run; refresh writes the live set back into the stored
 * inputs so the next `pulumi preview --diff` shows each user added, changed or removed. Taking
 * DB_ADMIN from the key's own user is refused unless `allowAdminRemoval`. Deleting the roster
 * stops managing; it removes nobody.
 */
export interface DatabaseUsers extends Outputs<Omit<DatabaseUsersState, "managedUserIds">> {}
export class DatabaseUsers extends ReviewAdminResource {
  constructor(name: string, args: DatabaseUsersArgs, opts?: pulumi.CustomResourceOptions) {
    super(databaseUsers.definition, name, args, opts);
  }
}
