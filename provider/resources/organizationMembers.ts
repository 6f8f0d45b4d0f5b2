/**
 * OrganizationMembers: the whole membership of one organization as a map keyed by lower-cased
 * email (E18 to E22, invitations through E19/E15/E13).
 */
import type * as pulumi from "@pulumi/pulumi";
import deepEqual from "fast-deep-equal";
import { z } from "zod";
import type { OrganizationPermission } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { compareText, definedOnly, mapLimit } from "../util";
import { Email, IdentifierList, Name, OrganizationId, OrganizationPermissions } from "./support/inputs";
import { argsMatch, containsUnknown, outputsMatch, UNKNOWN, Unwritten, type Operation } from "./support/lifecycle";
import { holderOf, personKeys } from "./support/handover";
import { assertKeepsAdmins, guardAdminLoss } from "./support/lockout";
import type { Grant } from "../../contract/grants";
import { planGrants, type AccessPlan, type LiveGrant } from "../access/plan";
import {
  deleteInvitation,
  invite,
  liveRoster,
  livePerson,
  patchMember,
  reconcileInvitation,
  removeMember,
  type LivePerson,
  type Presence,
} from "../access/orgPeople";

export type { LivePerson } from "../access/orgPeople";
import { sortedSet, type Identifier } from "../normalize";
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
import { changeMessage, entryLines, settingLines, type SettingRule } from "./support/rosterChanges";
import { CalendarDay, checkWindow, dateFields, dayIfDated, endsNow, expiringSoonDays, warnExpiringSoon } from "./support/expiry";

/** One person of the roster. Fields left out are not managed for that person. */
export interface RosterMemberInput {
  firstName?: pulumi.Input<string>;
  lastName?: pulumi.Input<string>;
  permissions?: pulumi.Input<pulumi.Input<OrganizationPermission>[]>;
  userIdentifiers?: pulumi.Input<pulumi.Input<{ abbreviation: pulumi.Input<string>; label: pulumi.Input<string> }>[]>;
  /** "YYYY-MM-DD" (UTC): access ends at the start of this day, and up then removes the person, even in additive mode. */
  expiresOn?: pulumi.Input<string>;
  /** "YYYY-MM-DD" (UTC): the first day of access; before it the person counts as not declared. */
  startsOn?: pulumi.Input<string>;
}

/** Inputs of an OrganizationMembers roster. */
export interface OrganizationMembersArgs {
  /** Changing it replaces. */
  organizationId: pulumi.Input<number>;
  /** "authoritative": the organization is made to equal the map; "additive": people are only added or updated. */
  mode: pulumi.Input<RosterMode>;
  /** The people, keyed by email (compared case-insensitively). */
  members: pulumi.Input<Record<string, pulumi.Input<RosterMemberInput>>>;
  /** Emails never removed in authoritative mode (people added by rules outside this program, break-glass admins). */
  protectedEmails?: pulumi.Input<pulumi.Input<string>[]>;
  /** Allow removing the key's own user or the last org admin. Default false. */
  allowAdminRemoval?: pulumi.Input<boolean>;
  /**
   * The drift gate for people in the organization the program does not declare (additive mode):
   * "failOnPrivileged" (default) fails preview and up while one of them holds an organization
   * permission, "failOnAny" while there is any, "report" warns, "ignore" says nothing.
   */
  onUnmanaged?: pulumi.Input<OnUnmanaged>;
  /** Emails of people the program does not declare and accepts as they are (the drift gate passes them). */
  knownExceptions?: pulumi.Input<pulumi.Input<string>[]>;
}

const Person = z
  .strictObject({
    firstName: Name.optional(),
    lastName: Name.optional(),
    permissions: OrganizationPermissions.optional(),
    userIdentifiers: IdentifierList.optional(),
    expiresOn: CalendarDay.optional(),
    startsOn: CalendarDay.optional(),
  })
  .superRefine((p, ctx) => checkWindow(p, ctx));
type Person = z.infer<typeof Person>;

const Inputs = z.strictObject({
  organizationId: OrganizationId,
  mode: rosterMode,
  members: z.record(z.string(), Person).transform((m, ctx) => {
    const out: Record<string, Person> = {};
    for (const [raw, person] of Object.entries(m)) {
      const parsed = Email.safeParse(raw);
      if (!parsed.success) {
        ctx.addIssue({ code: "custom", message: `'${raw}' must be an email address`, path: [raw] });
        continue;
      }
      if (out[parsed.data])
        ctx.addIssue({ code: "custom", message: `'${raw}' is listed twice (emails are compared case-insensitively)`, path: [raw] });
      out[parsed.data] = person;
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => compareText(a, b)));
  }),
  protectedEmails: z
    .array(Email)
    .transform((a) => sortedSet(a))
    .optional(),
  allowAdminRemoval: z.boolean().optional(),
  onUnmanaged: onUnmanagedSchema,
  knownExceptions: z
    .array(Email)
    .transform((a) => sortedSet(a))
    .optional(),
  declaredElsewhere: DeclaredElsewhere,
});
type Inputs = z.infer<typeof Inputs>;
argsMatch<OrganizationMembersArgs & RosterInternals, z.input<typeof Inputs>>(true);

type ManagedField = "firstName" | "lastName" | "permissions" | "userIdentifiers";

/** What an OrganizationMembers roster stores. */
export interface OrganizationMembersState {
  organizationId: number;
  mode: RosterMode;
  /** Live state of the people in the map (authoritative: everyone in the organization). */
  members: Record<string, LivePerson>;
  /** Who is in the organization (members and invitations) but not in the map. */
  unmanaged: ({ email: string } & LivePerson)[];
  /** Which fields the program manages for each person in the map. */
  managed: Record<string, ManagedField[]>;
  protectedEmails?: string[];
  allowAdminRemoval?: boolean;
  onUnmanaged?: OnUnmanaged;
  knownExceptions?: string[];
  /** What the rest of the program declared in this organization at the last up (declarations.ts). */
  declaredElsewhere?: Record<string, string>;
  /** End dates the map declares, by email (absent in older states). */
  expiresOn?: Record<string, string>;
  /** People whose access ends within reviewadmin:expiringSoonDays (default 14) of the last up or refresh: email -> end date. */
  expiringSoon?: Record<string, string>;
  /** People whose end date has passed, whom up removed (or found gone): email -> end date. */
  expired?: Record<string, string>;
  /** Undeclared people found when the program first applied the roster, with what each held: the drift gate passes them while they hold no more (unmanagedGate.ts; absent before 0.3.0). */
  foundWhenAdopted?: Record<string, string[]>;
}

type Settings = Pick<
  Inputs,
  "organizationId" | "mode" | "protectedEmails" | "allowAdminRemoval" | "onUnmanaged" | "knownExceptions" | "declaredElsewhere"
>;

function stateOf(
  inputs: Settings,
  managed: Record<string, ManagedField[]>,
  live: Map<string, Presence>,
  found?: FoundWhenAdopted,
): OrganizationMembersState {
  const members: Record<string, LivePerson> = {};
  const unmanaged: OrganizationMembersState["unmanaged"] = [];
  for (const [email, x] of [...live].sort(([a], [b]) => compareText(a, b))) {
    if (managed[email] || inputs.mode === "authoritative") members[email] = livePerson(x);
    if (!managed[email]) unmanaged.push({ email, ...livePerson(x) });
  }
  return definedOnly({
    organizationId: inputs.organizationId,
    mode: inputs.mode,
    members,
    unmanaged,
    managed,
    protectedEmails: inputs.protectedEmails,
    allowAdminRemoval: inputs.allowAdminRemoval,
    onUnmanaged: inputs.onUnmanaged,
    knownExceptions: inputs.knownExceptions,
    declaredElsewhere: inputs.declaredElsewhere,
    foundWhenAdopted: keptRecord(found, holdersOf(inputs.organizationId, unmanaged)),
  });
}

/** The people of `unmanaged` the drift gate looks at (unmanagedGate.ts): expired invitations give no access. */
function holdersOf(orgId: number, unmanaged: OrganizationMembersState["unmanaged"]): UnmanagedHolder[] {
  return unmanaged
    .filter((p) => p.status !== "expired")
    .map((p) => ({
      who: p.email,
      key: p.email,
      keys: personKeys("member", orgId, { email: p.email, userId: p.userId }),
      permissions: p.permissions,
      status: p.status,
    }));
}

/** Every organization permission is privileged (each administers something). */
const PRIVILEGED = () => true;

/** Who the drift gate stops on, judged with `settings` against the record of `state`. */
function gate(settings: Settings, state: Pick<OrganizationMembersState, "unmanaged" | "foundWhenAdopted">): GateFinding[] {
  return gateFindings(settings, holdersOf(settings.organizationId, state.unmanaged ?? []), PRIVILEGED, state.foundWhenAdopted);
}

const DECLARE = "Declare them in the roster's members, or list their emails in knownExceptions to accept them as they are";

/** Who made a finding's person what they are, from the activity log since the roster was last applied. */
const describeFor = (op: Operation, orgId: number, users: Map<string, number | null>) => (f: GateFinding) =>
  changedBy(op.client, personTarget({ organizationId: orgId }, { email: f.holder.key, userId: users.get(f.holder.key) }, op.appliedAt));

const userIds = (unmanaged: OrganizationMembersState["unmanaged"]) => new Map(unmanaged.map((p) => [p.email, p.userId]));

const scopeOf = (orgId: number) => ({ kind: "organization" as const, id: orgId });

/** The map as grants (contract/grants.ts), by email: a field left out is not managed. */
const grantsOf = (inputs: Inputs): Record<string, Grant> =>
  Object.fromEntries(
    Object.entries(inputs.members).map(([email, p]) => [
      email,
      {
        scope: scopeOf(inputs.organizationId),
        subject: { email },
        permissions: p.permissions,
        identifiers: p.userIdentifiers,
        window: { startsOn: p.startsOn, expiresOn: p.expiresOn },
      },
    ]),
  );

/** Everyone live as grants, by email. */
const liveGrantsOf = (orgId: number, live: Record<string, LivePerson>): Record<string, LiveGrant> =>
  Object.fromEntries(
    Object.entries(live).map(([email, p]) => [
      email,
      {
        scope: scopeOf(orgId),
        subject: { email, userId: p.userId },
        permissions: p.permissions,
        identifiers: p.userIdentifiers,
        status: p.status,
      },
    ]),
  );

/** The plan (access/plan.ts) on the service's day; `now`: the inputs with only the people in their window. */
type Plan = AccessPlan & { now: Inputs; day?: string };

async function planFor(client: ReviewAdminClient, inputs: Inputs, live: Record<string, LivePerson>): Promise<Plan> {
  // Today by the service's clock, asked only when an entry has a date.
  const day = await dayIfDated(client, Object.values(inputs.members));
  const plan = planGrants(grantsOf(inputs), liveGrantsOf(inputs.organizationId, live), {
    scope: scopeOf(inputs.organizationId),
    mode: inputs.mode,
    protectedKeys: inputs.protectedEmails,
    declaredElsewhere: (keys) => holderOf(keys, inputs.declaredElsewhere),
    day,
    soonDays: expiringSoonDays(),
  });
  const members = Object.fromEntries(Object.keys(plan.current).map((e) => [e, inputs.members[e]!]));
  return { ...plan, now: { ...inputs, members }, day };
}

/**
 * Anti-lockout at preview (lockout.ts): refuses a plan that would remove the key's own user or the
 * last org admin (unless allowed). `live` must hold everyone in the organization, managed or not.
 */
async function guardLockout(client: ReviewAdminClient, inputs: Inputs, live: Record<string, LivePerson>, plan: Plan, action: string) {
  if (inputs.allowAdminRemoval) return;
  const everyone = liveGrantsOf(inputs.organizationId, live);
  await assertKeepsAdmins(
    client,
    Object.values(everyone),
    plan.losing.map((e) => everyone[e]!),
    action,
  );
}

/** Makes the organization match the roster: adds first, then changes, removals last. */
async function reconcile(
  declared: Inputs,
  op: Operation,
  previous: OrganizationMembersState | undefined,
): Promise<OrganizationMembersState | Unwritten<OrganizationMembersState>> {
  const { client, action } = op;
  const orgId = declared.organizationId;
  const roster = await liveRoster(client, orgId);
  const live = stateOf({ ...declared, mode: "authoritative" }, {}, roster).members;
  const plan = await planFor(client, declared, live);
  const dated = plan;
  const inputs = plan.now;
  await guardLockout(client, inputs, live, plan, action);
  for (const [email, holder] of plan.handedOver) say.info(`${action}: left ${email} in place: ${holder} declares them in this program`);
  const note = previous
    ? undefined
    : adoptionNote(
        action,
        "people",
        Object.keys(inputs.members).filter((e) => live[e]),
      );
  if (note) say.info(note);

  for (const e of Object.keys(dated.expired).filter((x) => live[x]))
    say.info(`${action}: ${e}: expired on ${dated.expired[e]}, removing them from the organization`);
  const writes = plan.add.length + plan.change.length + plan.remove.length;
  const wrote = progressOf(action, writes, "people");
  // Adds run concurrently so the batcher sends one E19 per permission set.
  await Promise.all(
    plan.add.map(async (email) => {
      const want = inputs.members[email]!;
      const got = await invite(client, { organizationId: orgId, email, ...want }, action);
      if ("member" in got && want.userIdentifiers) await patchMember(client, orgId, got.member, { userIdentifiers: want.userIdentifiers });
      wrote();
    }),
  );
  const writeChanges = () =>
    mapLimit(plan.change, 8, async (email) => {
      const want = inputs.members[email]!;
      const x = roster.get(email)!;
      if ("invitation" in x)
        return void (await reconcileInvitation(client, { organizationId: orgId, email, ...want }, x.invitation, action));
      const have = live[email]!;
      await patchMember(client, orgId, x.member, {
        organizationPermissions: want.permissions && !deepEqual(want.permissions, have.permissions) ? want.permissions : undefined,
        userIdentifiers: want.userIdentifiers && !deepEqual(want.userIdentifiers, have.userIdentifiers) ? want.userIdentifiers : undefined,
      });
      wrote();
    });
  const writeRemovals = () =>
    mapLimit(plan.remove, 8, async (email) => {
      const x = roster.get(email)!;
      if ("member" in x) await removeMember(client, orgId, x.member.id);
      else await deleteInvitation(client, orgId, x.invitation.email);
      wrote();
    });
  // Changes and removals that take ORG_ADMIN or membership from someone are judged again, in
  // turn with the organization's other admin removals, against a fresh list (lockout.ts).
  const losing = inputs.allowAdminRemoval ? [] : plan.losing.flatMap((e) => live[e]!.userId ?? []);
  await guardAdminLoss(client, scopeOf(orgId), losing, action, async () => {
    await writeChanges();
    await writeRemovals();
  });
  const after = stateOf(inputs, managedOf(declared), writes ? await liveRoster(client, orgId) : roster, previous?.foundWhenAdopted);
  if (!previous) {
    // The first apply: whoever is there undeclared was there before the program; said once, recorded.
    const holders = holdersOf(orgId, after.unmanaged);
    after.foundWhenAdopted = adoptionRecord(inputs, holders, PRIVILEGED);
    const text = adoptionText(inputs, holders, after.foundWhenAdopted);
    if (text) say.warn(`${action}: ${text}`);
  }
  const state = definedOnly({ ...after, ...dateFields(dated) });
  // Who appeared or gained access since, and waits for a decision, fails the update now that the rest is applied.
  await gateAfterWrites(op, inputs, gate(inputs, state), describeFor(op, orgId, userIds(state.unmanaged)), DECLARE, {
    state,
    wrote: writes > 0,
  });
  return writes > 0 || !previous ? state : new Unwritten(state);
}

function managedOf(inputs: Inputs): Record<string, ManagedField[]> {
  const fields: ManagedField[] = ["firstName", "lastName", "permissions", "userIdentifiers"];
  return Object.fromEntries(Object.entries(inputs.members).map(([email, p]) => [email, fields.filter((f) => p[f] !== undefined)]));
}

/**
 * The inputs a live state stands for, written back by refresh so the next preview shows drift:
 * managed fields come back as they are live, and in authoritative mode people outside the map
 * appear too, so the preview shows them being removed.
 */
function inputsOf(state: OrganizationMembersState): Inputs {
  const members: Record<string, Person> = {};
  for (const [email, p] of Object.entries(state.members)) {
    const fields = state.managed[email] ?? ["permissions"];
    members[email] = definedOnly({
      firstName: fields.includes("firstName") ? (p.firstName ?? undefined) : undefined,
      lastName: fields.includes("lastName") ? (p.lastName ?? undefined) : undefined,
      permissions: fields.includes("permissions") ? p.permissions : undefined,
      userIdentifiers: fields.includes("userIdentifiers") ? p.userIdentifiers : undefined,
      expiresOn: state.expiresOn?.[email],
    });
  }
  return definedOnly({
    organizationId: state.organizationId,
    mode: state.mode,
    members,
    protectedEmails: state.protectedEmails,
    allowAdminRemoval: state.allowAdminRemoval,
    onUnmanaged: state.onUnmanaged,
    knownExceptions: state.knownExceptions,
    declaredElsewhere: state.declaredElsewhere,
  });
}

const label = (s: { organizationId: number }) => `OrganizationMembers of organization ${s.organizationId}`;

/** The roster's settings as the preview names their changes (rosterChanges.ts). */
const SETTINGS: SettingRule[] = [
  { key: "mode" },
  { key: "onUnmanaged", absent: "failOnPrivileged" },
  { key: "knownExceptions", absent: [], meaning: "accepted as they are" },
  { key: "protectedEmails", absent: [], meaning: "never removed" },
  { key: "allowAdminRemoval", absent: false },
  { key: "declaredElsewhere", absent: {} },
];

const identifiersText = (list: readonly Identifier[]) => list.map((i) => `${i.abbreviation} "${i.label}"`).join(", ");

/** The plan as the preview says it: one line per person who changes (rosterChanges.ts). */
function personLines(
  news: Inputs,
  dated: Plan,
  have: Record<string, LivePerson>,
  plan: Plan,
  olds: OrganizationMembersState,
  addedBy: Map<string, string>,
): string[] {
  const view = (p: { permissions?: string[]; userIdentifiers?: Identifier[]; status?: string }) => ({
    permissions: p.permissions,
    identifiers: p.userIdentifiers && identifiersText(p.userIdentifiers),
    status: p.status,
  });
  return entryLines({
    name: (e) => e,
    want: Object.fromEntries(Object.entries(dated.now.members).map(([e, p]) => [e, view(p)])),
    have: Object.fromEntries(Object.entries(have).map(([e, p]) => [e, view(p)])),
    add: plan.add,
    change: plan.change,
    remove: plan.remove,
    ends: dated.ends,
    storedEnds: olds.expiresOn ?? {},
    expired: dated.expired,
    removedWhy: "not in the members of this authoritative roster",
    addedBy,
    dropped: news.mode === "additive" ? Object.keys(olds.managed ?? {}).filter((e) => !news.members[e] && have[e]) : [],
    droppedNote: () => "stays in the organization as they are (additive roster)",
    order: compareText,
  });
}

/** The OrganizationMembers implementation run by the plugin. */
export const organizationMembers = rosterResource<Inputs, OrganizationMembersState>({
  kind: "OrganizationMembers",
  inputs: Inputs,
  outputs: outputsMatch<OrganizationMembersState>()([
    "organizationId",
    "mode",
    "members",
    "unmanaged",
    "managed",
    "protectedEmails",
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
  // Who-changed at refresh: the people of the map (everyone when authoritative) and the unmanaged, by email.
  people: (s) =>
    new Map(
      [...Object.entries(s.members ?? {}), ...(s.unmanaged ?? []).map(({ email, ...p }) => [email, p] as const)].map(([email, p]) => [
        email,
        { grant: { scope: scopeOf(s.organizationId), subject: { email, userId: p.userId } }, held: p },
      ]),
    ),
  idOf: (s) => `organization/${s.organizationId}`,
  // Authoritative removals hand over, and the drift gate accepts, people the program declares elsewhere.
  handsOver: (i) => (i.mode === "authoritative" || i.onUnmanaged !== "ignore" ? `member:${i.organizationId}:` : undefined),
  claims: (i) =>
    Object.entries(i.members).flatMap(([email, p]) => [
      ...personKeys("member", i.organizationId, { email }),
      ...(p.permissions ? personKeys("permissions", i.organizationId, { email }) : []),
      ...(p.userIdentifiers ? personKeys("identifiers", i.organizationId, { email }) : []),
    ]),

  async diff(olds, news, op) {
    const { client, action, refresh } = op;
    // A preview with values not known yet: say it may change, and judge lockout at up.
    if (containsUnknown(news)) {
      const same = news.organizationId === olds.organizationId || (news.organizationId as unknown) === UNKNOWN;
      return { changes: true, replaces: same ? [] : ["organizationId"] };
    }
    const orgId = olds.organizationId;
    if (news.organizationId !== orgId) return { changes: true, replaces: ["organizationId"], deleteBeforeReplace: false };
    // Identifiers wait quietly for an invitation's acceptance; a person the state shows as
    // invited is looked up (one cached list per run) so identifiers are applied once they accept.
    const members = { ...olds.members };
    const waiting = Object.keys(news.members).filter(
      (e) => news.members[e]!.userIdentifiers && members[e] && members[e].status !== "active",
    );
    if (waiting.length && !refresh) {
      const live = await liveRoster(client, orgId);
      for (const e of waiting) if (live.get(e)) members[e] = livePerson(live.get(e)!);
    }
    // Everyone live (managed or not), so switching to authoritative shows who would go. An
    // authoritative preview reads the organization now: whoever it would remove is named, people
    // added since the last refresh included.
    let everyone = { ...Object.fromEntries((olds.unmanaged ?? []).map(({ email, ...p }) => [email, p])), ...members };
    const known = new Set(Object.keys(everyone));
    if (news.mode === "authoritative" && op.preview && !refresh)
      everyone = stateOf({ ...news, mode: "authoritative" }, {}, await liveRoster(client, orgId)).members;
    const have = news.mode === "authoritative" ? everyone : members;
    const plan = await planFor(client, news, have);
    const dated = plan;
    if (!refresh && dated.day) warnExpiringSoon(action, dated.soon, dated.day, (e) => e);
    const settings = settingLines(olds, news, SETTINGS);
    const changed =
      settings.length > 0 ||
      !deepEqual(Object.keys(news.members), Object.keys(olds.managed ?? {}).sort()) ||
      !deepEqual(dated.ends, olds.expiresOn ?? {});
    // The drift gate, on who the last run or refresh found, with the program's settings (unmanagedGate.ts).
    const waits = await gateInDiff(op, news, gate(news, olds), describeFor(op, orgId, userIds(olds.unmanaged ?? [])), DECLARE);
    if (!refresh) {
      const fresh = plan.remove.filter((e) => !known.has(e)).map((e) => ({ key: e, email: e, userId: everyone[e]?.userId }));
      const addedBy = await addedOutside(client, { organizationId: orgId }, fresh, op.appliedAt, "added outside this program");
      const message = changeMessage(label(news), personLines(news, dated, have, plan, olds, addedBy), settings);
      if (message) say.info(message);
    }
    // Anti-lockout at preview, only when the plan takes someone's membership or ORG_ADMIN away.
    if (plan.remove.length || plan.change.length) await guardLockout(client, dated.now, everyone, plan, action);
    return { changes: plan.add.length + plan.change.length + plan.remove.length > 0 || changed || waits, replaces: [] };
  },

  reconcile: (inputs, op, previous) => reconcile(inputs, op, previous),
  async previewAdoption(inputs, op) {
    const state = stateOf(inputs, managedOf(inputs), await liveRoster(op.client, inputs.organizationId));
    const holders = holdersOf(inputs.organizationId, state.unmanaged);
    const text = adoptionText(inputs, holders, adoptionRecord(inputs, holders, PRIVILEGED), true);
    if (text) say.warn(`${op.action}: ${text}`);
  },
  async readLive(state, op) {
    const listed = stateOf(state, state.managed ?? {}, await liveRoster(op.client, state.organizationId), state.foundWhenAdopted);
    // What expires soon is counted again from the stored end dates, so a refresh keeps the output current.
    const fresh = definedOnly({ ...listed, ...dateFields(await endsNow(op.client, state.expiresOn)) });
    gateInRead(op, fresh, gate(fresh, fresh), DECLARE);
    return { state: fresh, inputs: inputsOf(fresh) };
  },
  releaseNote: "no longer managed; its members stay as they are.",
});

/**
 * The whole membership of one organization, as a map keyed by email.
 *
 * - `mode: "authoritative"` adds, updates and removes (pending invitations included) so the
 *   organization equals the map, except `protectedEmails`; `mode: "additive"` never removes.
 * - `unmanaged` lists who is in the organization but not in the map, for access reviews.
 * - Refresh writes the live roster into the stored inputs, so `pulumi preview --diff` shows each
 *   person added (`+`), changed (`~`) or removed (`-`) under `members`.
 * - Costs per run: one paged members list and one invitations list, adds batched into one E19
 *   per permission set (per 100 people), one E22 per changed member, one E20/E13 per removal.
 * - Deleting the roster stops managing; it removes nobody.
 */
export interface OrganizationMembers extends Outputs<Omit<OrganizationMembersState, "managed">> {}
export class OrganizationMembers extends ReviewAdminResource {
  constructor(name: string, args: OrganizationMembersArgs, opts?: pulumi.CustomResourceOptions) {
    super(organizationMembers.definition, name, args, opts);
  }
}
