/**
 * DatabaseUsers: every user's permissions on one database, as a map from user id to permissions
 * (E23, E24, E26).
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { DatabasePermission, DatabaseUser } from "../../contract/types";
import { databaseScope } from "../../contract/grants";
import { definedOnly } from "../util";
import { DatabaseId, DatabasePermissions, UserId } from "./support/inputs";
import { argsMatch, outputsMatch } from "./support/lifecycle";
import { grantKey } from "./support/handover";
import { sortedSet } from "../normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";
import { DeclaredElsewhere, onUnmanagedSchema, rosterMode, type RosterInternals } from "./support/roster";
import { grantRoster } from "./support/grantRoster";
import type { OnUnmanaged, RosterMode } from "../access/rosterMode";
import { permissionsText } from "./support/rosterChanges";
import { listedDatabaseUsers, writeDatabaseRoster } from "../access/databaseGrants";
import { CalendarDay, checkWindow, type Window } from "./support/expiry";

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
  /**
   * Users the map does not declare whom the roster found when the program first applied it (user
   * id -> the permissions held then): the drift gate passes them while they hold no more
   * (access/gate.ts). Absent in states written before 0.3.0.
   */
  foundWhenAdopted?: Record<string, string[]>;
}

const liveUser = (u: DatabaseUser): LiveUser => ({
  permissions: sortedSet(u.permissions),
  active: u.active,
  username: u.user.username ?? null,
});

function stateOf(inputs: Inputs, managed: number[], live: Map<number, DatabaseUser>): DatabaseUsersState {
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

/** "user 1003 (alan)" when the live state knows the username. */
const userText = (id: string, u: LiveUser | undefined) => `user ${id}${u?.username ? ` (${u.username})` : ""}`;

/** The DatabaseUsers implementation run by the plugin (the steps: grantRoster.ts). */
export const databaseUsers = grantRoster<Inputs, DatabaseUsersState, LiveUser, Map<number, DatabaseUser>, number[]>({
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
    "foundWhenAdopted",
  ]),
  label: (s) => `DatabaseUsers of database ${s.databaseId}`,
  idOf: (s) => `database/${s.databaseId}`,
  // Authoritative removals hand over, and the drift gate accepts, grants the program declares elsewhere.
  handsOver: (i) => (i.mode === "authoritative" || i.onUnmanaged !== "ignore" ? `grant:${i.databaseId}:` : undefined),
  claims: (i) => Object.keys(i.users).map((id) => grantKey(i.databaseId, id)),
  releaseNote: "no longer managed; database permissions stay as they are.",

  scopeKind: "database",
  scopeId: (x) => x.databaseId,
  deleteBeforeReplace: true,
  mapField: "users",
  settingRules: [
    { key: "onUnmanaged", absent: "failOnPrivileged" },
    { key: "knownExceptions", absent: [], meaning: "accepted as they are" },
    { key: "protectedUserIds", absent: [], meaning: "never removed" },
    { key: "allowAdminRemoval", absent: false },
    { key: "declaredElsewhere", absent: {} },
  ],
  words: {
    entries: "users",
    adopted: "users' permissions",
    name: userText,
    handedOver: (id, holder) => `left user ${id} in place: ${holder} declares their permissions in this program`,
    expired: (id, end) => `user ${id}: expired on ${end}, removing their permissions`,
    removedWhy: "not in the users of this authoritative roster",
    dropped: (_id, u) => `keeps ${permissionsText(u.permissions)} (additive roster)`,
    addedOutside: "given access outside this program",
    declare: "Declare them in the roster's users, or list their user ids in knownExceptions to accept them as they are",
  },
  order: (a, b) => Number(a) - Number(b),
  grants: (i) =>
    Object.fromEntries(
      Object.entries(i.users).map(([id, e]) => [
        id,
        {
          scope: databaseScope(i),
          subject: { userId: Number(id) },
          permissions: permissionsOf(e),
          window: windowOf(e),
        },
      ]),
    ),
  onDay: (i, keys) => ({ ...i, users: Object.fromEntries(keys.map((id) => [id, i.users[id]!])) }),
  protectedKeys: (i) => (i.protectedUserIds ?? []).map(String),
  read: listedDatabaseUsers,
  managedOf: (i) => Object.keys(i.users).map(Number),
  storedManaged: (s) => s.managedUserIds ?? [],
  managedKeys: (s) => (s.managedUserIds ?? []).map(String),
  stateOf,
  entries: (s) => s.users ?? {},
  unmanaged: (s) => Object.fromEntries((s.unmanaged ?? []).map(({ userId, ...u }) => [String(userId), u])),
  // The username is an outside user's email.
  liveGrant: (scope, id, u) => ({ scope, subject: { userId: Number(id) }, permissions: u.permissions }),
  write: writeDatabaseRoster,
  inputsOf,
});

/**
 * Every user's permissions on one database, as a map from user id to permissions.
 * `mode: "authoritative"` sets and removes so the database equals the map, except
 * `protectedUserIds`; `mode: "additive"` never removes. `unmanaged` lists users with permissions
 * not in the map. One paged list of the database's users per run; refresh writes the live set back into the stored
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
