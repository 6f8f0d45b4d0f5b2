/**
 * DatabaseUsers: every user's permissions on one database, as a map from user id to permissions
 * (E23, E24, E26).
 */
import type * as pulumi from "@pulumi/pulumi";
import deepEqual from "fast-deep-equal";
import { z } from "zod";
import type { DatabasePermission, DatabaseUser } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { definedOnly, mapLimit } from "../util";
import { DatabaseId, DatabasePermissions, UserId } from "./support/inputs";
import { argsMatch, containsUnknown, outputsMatch, UNKNOWN, Unwritten, type Operation } from "./support/lifecycle";
import { grantKey, holderOf } from "./support/handover";
import { assertKeepsAdmins, guardAdminLoss } from "./support/lockout";
import type { Grant } from "../../contract/grants";
import { planGrants, type AccessPlan, type LiveGrant } from "../access/plan";
import { sortedSet } from "../normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";
import {
  adoptionNote,
  DeclaredElsewhere,
  gateAfterWrites,
  gateInDiff,
  gateInRead,
  onUnmanagedSchema,
  progressOf,
  rosterMode,
  rosterResource,
  type RosterInternals,
} from "./support/roster";
import type { OnUnmanaged, RosterMode } from "./support/rosterMode";
import {
  adoptionRecord,
  adoptionText,
  gateFindings,
  keptRecord,
  type FoundWhenAdopted,
  type GateFinding,
  type UnmanagedHolder,
} from "./support/unmanagedGate";
import { say } from "./support/messages";
import { addedOutside, changedBy, personTarget } from "./support/whoChanged";
import { changeMessage, entryLines, permissionsText, settingLines, type SettingRule } from "./support/rosterChanges";
import { listedDatabaseUsers, removeGrant, setGrant } from "../access/databaseGrants";
import {
  CalendarDay,
  checkWindow,
  dateFields,
  dayIfDated,
  endsNow,
  expiringSoonDays,
  warnExpiringSoon,
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
  /**
   * Users the map does not declare whom the roster found when the program first applied it (user
   * id -> the permissions held then): the drift gate passes them while they hold no more
   * (unmanagedGate.ts). Absent in states written before 0.3.0.
   */
  foundWhenAdopted?: Record<string, string[]>;
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

function stateOf(inputs: Settings, managed: number[], live: Map<number, DatabaseUser>, found?: FoundWhenAdopted): DatabaseUsersState {
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
    foundWhenAdopted: keptRecord(found, holdersOf(inputs.databaseId, unmanaged)),
  });
}

/** The users of `unmanaged` as the drift gate sees them (unmanagedGate.ts). */
function holdersOf(dbId: number, unmanaged: DatabaseUsersState["unmanaged"]): UnmanagedHolder[] {
  return unmanaged.map((u) => ({
    who: `user ${u.userId}${u.username ? ` (${u.username})` : ""}`,
    key: String(u.userId),
    keys: [grantKey(dbId, u.userId)],
    permissions: u.permissions,
  }));
}

/** DB_ADMIN is the privileged database permission (it manages everyone's). */
const PRIVILEGED = (p: string) => p === "DB_ADMIN";

/** Who the drift gate stops on, judged with `settings` against the record of `state`. */
function gate(settings: Settings, state: Pick<DatabaseUsersState, "unmanaged" | "foundWhenAdopted">): GateFinding[] {
  return gateFindings(settings, holdersOf(settings.databaseId, state.unmanaged ?? []), PRIVILEGED, state.foundWhenAdopted);
}

const DECLARE = "Declare them in the roster's users, or list their user ids in knownExceptions to accept them as they are";

/** Who gave a finding's user what they hold, from the activity log since the roster was last applied. */
const describeFor = (op: Operation, dbId: number) => (f: GateFinding) =>
  changedBy(op.client, personTarget({ databaseId: dbId }, { userId: Number(f.holder.key) }, op.appliedAt));

/** The inputs as they stand on one day: only the entries in their window, as bare permissions. */
type Current = Omit<Inputs, "users"> & { users: Record<string, DatabasePermission[]> };

const scopeOf = (databaseId: number) => ({ kind: "database" as const, id: databaseId });

/** The map as grants (contract/grants.ts), by user id. */
const grantsOf = (inputs: Inputs): Record<string, Grant> =>
  Object.fromEntries(
    Object.entries(inputs.users).map(([id, e]) => [
      id,
      { scope: scopeOf(inputs.databaseId), subject: { userId: Number(id) }, permissions: permissionsOf(e), window: windowOf(e) },
    ]),
  );

/** Everyone live as grants, by user id (the username is an outside user's email). */
const liveGrantsOf = (dbId: number, live: Record<string, LiveUser>): Record<string, LiveGrant> =>
  Object.fromEntries(
    Object.entries(live).map(([id, u]) => [id, { scope: scopeOf(dbId), subject: { userId: Number(id) }, permissions: u.permissions }]),
  );

/** The plan (access/plan.ts) on the service's day; `set`: who is added or changed, in the map's order. */
type Plan = AccessPlan & { set: string[]; now: Current; day?: string };

async function planFor(client: ReviewAdminClient, inputs: Inputs, live: Record<string, LiveUser>): Promise<Plan> {
  // Today by the service's clock, asked only when an entry has a date.
  const day = await dayIfDated(client, Object.values(inputs.users).map(windowOf));
  const plan = planGrants(grantsOf(inputs), liveGrantsOf(inputs.databaseId, live), {
    scope: scopeOf(inputs.databaseId),
    mode: inputs.mode,
    protectedKeys: (inputs.protectedUserIds ?? []).map(String),
    declaredElsewhere: (keys) => holderOf(keys, inputs.declaredElsewhere),
    day,
    soonDays: expiringSoonDays(),
  });
  const writes = new Set([...plan.add, ...plan.change]);
  const users = Object.fromEntries(Object.entries(plan.current).map(([id, g]) => [id, g.permissions as DatabasePermission[]]));
  return { ...plan, set: Object.keys(plan.current).filter((id) => writes.has(id)), now: { ...inputs, users }, day };
}

const label = (s: { databaseId: number }) => `DatabaseUsers of database ${s.databaseId}`;

/** The roster's settings as the preview names their changes (rosterChanges.ts). */
const SETTINGS: SettingRule[] = [
  { key: "mode" },
  { key: "onUnmanaged", absent: "failOnPrivileged" },
  { key: "knownExceptions", absent: [], meaning: "accepted as they are" },
  { key: "protectedUserIds", absent: [], meaning: "never removed" },
  { key: "allowAdminRemoval", absent: false },
  { key: "declaredElsewhere", absent: {} },
];

/** "user 1003 (alan)" when the live state knows the username. */
const userText = (id: string, u: LiveUser | undefined) => `user ${id}${u?.username ? ` (${u.username})` : ""}`;

/** The plan as the preview says it: one line per user who changes (rosterChanges.ts). */
function userLines(
  news: Inputs,
  dated: Plan,
  have: Record<string, LiveUser>,
  plan: Plan,
  olds: DatabaseUsersState,
  addedBy: Map<string, string>,
): string[] {
  const want = dated.now.users;
  return entryLines({
    name: (id) => userText(id, have[id]),
    want: Object.fromEntries(Object.entries(want).map(([id, permissions]) => [id, { permissions }])),
    have,
    add: plan.set.filter((id) => !have[id]),
    change: plan.set.filter((id) => have[id]),
    remove: plan.remove,
    ends: dated.ends,
    storedEnds: olds.expiresOn ?? {},
    expired: dated.expired,
    removedWhy: "not in the users of this authoritative roster",
    addedBy,
    dropped: news.mode === "additive" ? (olds.managedUserIds ?? []).map(String).filter((id) => !news.users[id] && have[id]) : [],
    droppedNote: (id) => `keeps ${permissionsText(have[id]!.permissions)} (additive roster)`,
    order: (a, b) => Number(a) - Number(b),
  });
}

/** Anti-lockout at preview (lockout.ts): refuses the plan, unless allowed, when it takes DB_ADMIN from the key's own user or the last DB_ADMIN. */
async function guardLockout(client: ReviewAdminClient, inputs: Current, live: Record<string, LiveUser>, plan: Plan, action: string) {
  if (inputs.allowAdminRemoval) return;
  const everyone = liveGrantsOf(inputs.databaseId, live);
  await assertKeepsAdmins(
    client,
    Object.values(everyone),
    plan.losing.map((id) => everyone[id]!),
    action,
  );
}

async function reconcile(
  declared: Inputs,
  op: Operation,
  previous: DatabaseUsersState | undefined,
): Promise<DatabaseUsersState | Unwritten<DatabaseUsersState>> {
  const { client, action } = op;
  const dbId = declared.databaseId;
  const everyone = stateOf({ ...declared, mode: "authoritative" }, [], await listedDatabaseUsers(client, dbId)).users;
  const plan = await planFor(client, declared, everyone);
  const dated = plan;
  const inputs = plan.now;
  await guardLockout(client, inputs, everyone, plan, action);
  for (const [id, holder] of plan.handedOver)
    say.info(`${action}: left user ${id} in place: ${holder} declares their permissions in this program`);
  const note = previous
    ? undefined
    : adoptionNote(
        action,
        "users' permissions",
        Object.keys(inputs.users).filter((id) => everyone[id]),
      );
  if (note) say.info(note);
  for (const id of Object.keys(dated.expired).filter((e) => everyone[e]))
    say.info(`${action}: user ${id}: expired on ${dated.expired[id]}, removing their permissions`);
  const writes = plan.set.length + plan.remove.length;
  const wrote = progressOf(action, writes, "users");
  const write = async () => {
    await mapLimit(plan.set, 8, async (id) => {
      await setGrant(client, dbId, Number(id), inputs.users[id]!);
      wrote();
    });
    await mapLimit(plan.remove, 8, async (id) => {
      await removeGrant(client, dbId, Number(id));
      wrote();
    });
  };
  // Writes that take DB_ADMIN from someone are judged again, in turn with the database's other admin removals, against a fresh list (lockout.ts).
  const losing = inputs.allowAdminRemoval ? [] : plan.losing.map(Number);
  await (losing.length ? guardAdminLoss(client, scopeOf(dbId), losing, action, write) : write());
  const managed = Object.keys(declared.users).map(Number);
  const after = stateOf(inputs, managed, await listedDatabaseUsers(client, dbId), previous?.foundWhenAdopted);
  if (!previous) {
    // The first apply: whoever is there undeclared was there before the program; said once, recorded.
    const holders = holdersOf(dbId, after.unmanaged);
    after.foundWhenAdopted = adoptionRecord(inputs, holders, PRIVILEGED);
    const text = adoptionText(inputs, holders, after.foundWhenAdopted);
    if (text) say.warn(`${action}: ${text}`);
  }
  const state = withDates(after, dated);
  // Who appeared or gained access since, and waits for a decision, fails the update now that the rest is applied.
  await gateAfterWrites(op, inputs, gate(inputs, state), describeFor(op, dbId), DECLARE, { state, wrote: writes > 0 });
  return writes > 0 || !previous ? state : new Unwritten(state);
}

/** The state with the map's dates: what it declares, what expires soon and what has expired. */
function withDates(state: DatabaseUsersState, dated: Pick<AccessPlan, "ends" | "soon" | "expired">): DatabaseUsersState {
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
    "foundWhenAdopted",
  ]),
  label,
  // Who-changed at refresh: the users of the map (everyone when authoritative) and the unmanaged, by user id.
  people: (s) =>
    new Map(
      [...Object.entries(s.users ?? {}), ...(s.unmanaged ?? []).map(({ userId, ...u }) => [String(userId), u] as const)].map(([id, u]) => [
        id,
        { grant: { scope: scopeOf(s.databaseId), subject: { userId: Number(id) } }, held: u },
      ]),
    ),
  idOf: (s) => `database/${s.databaseId}`,
  // Authoritative removals hand over, and the drift gate accepts, grants the program declares elsewhere.
  handsOver: (i) => (i.mode === "authoritative" || i.onUnmanaged !== "ignore" ? `grant:${i.databaseId}:` : undefined),
  claims: (i) => Object.keys(i.users).map((id) => grantKey(i.databaseId, id)),

  async diff(olds, news, op) {
    const { client, action, refresh } = op;
    // A preview with values not known yet: say it may change, and judge lockout at up.
    if (containsUnknown(news)) {
      const same = news.databaseId === olds.databaseId || (news.databaseId as unknown) === UNKNOWN;
      return { changes: true, replaces: same ? [] : ["databaseId"] };
    }
    const dbId = olds.databaseId;
    if (news.databaseId !== dbId) return { changes: true, replaces: ["databaseId"], deleteBeforeReplace: true };
    // Everyone with permissions (managed or not); an authoritative preview reads the database now,
    // so whoever it would remove is named, users given access since the last refresh included.
    const stored = { ...Object.fromEntries((olds.unmanaged ?? []).map(({ userId, ...u }) => [String(userId), u])), ...olds.users };
    const have =
      news.mode === "authoritative" && op.preview && !refresh
        ? stateOf({ ...news, mode: "authoritative" }, [], await listedDatabaseUsers(client, dbId)).users
        : stored;
    const plan = await planFor(client, news, have);
    const dated = plan;
    if (!refresh && dated.day) warnExpiringSoon(action, dated.soon, dated.day, (id) => `user ${id}`);
    const settings = settingLines(olds, news, SETTINGS);
    const managed = Object.keys(news.users).map(Number);
    const changed = settings.length > 0 || !deepEqual(managed, olds.managedUserIds ?? []) || !deepEqual(dated.ends, olds.expiresOn ?? {});
    // The drift gate, on who the last run or refresh found, with the program's settings (unmanagedGate.ts).
    const waits = await gateInDiff(op, news, gate(news, olds), describeFor(op, dbId), DECLARE);
    if (!refresh) {
      const fresh = plan.remove.filter((id) => !stored[id]).map((id) => ({ key: id, userId: Number(id) }));
      const addedBy = await addedOutside(client, { databaseId: dbId }, fresh, op.appliedAt, "given access outside this program");
      const message = changeMessage(label(news), userLines(news, dated, have, plan, olds, addedBy), settings, "users");
      if (message) say.info(message);
    }
    if (plan.set.length || plan.remove.length) await guardLockout(client, dated.now, have, plan, action);
    return { changes: plan.set.length + plan.remove.length > 0 || changed || waits, replaces: [] };
  },

  reconcile: (inputs, op, previous) => reconcile(inputs, op, previous),
  async previewAdoption(inputs, op) {
    const state = stateOf(inputs, Object.keys(inputs.users).map(Number), await listedDatabaseUsers(op.client, inputs.databaseId));
    const holders = holdersOf(inputs.databaseId, state.unmanaged);
    const text = adoptionText(inputs, holders, adoptionRecord(inputs, holders, PRIVILEGED), true);
    if (text) say.warn(`${op.action}: ${text}`);
  },
  async readLive(state, op) {
    const listed = stateOf(
      state,
      state.managedUserIds ?? [],
      await listedDatabaseUsers(op.client, state.databaseId),
      state.foundWhenAdopted,
    );
    // What expires soon is counted again from the stored end dates, so a refresh keeps the output current.
    const fresh = withDates(listed, await endsNow(op.client, state.expiresOn));
    gateInRead(op, fresh, gate(fresh, fresh), DECLARE);
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
