/**
 * OrganizationMembers: the whole membership of one organization as a map keyed by lower-cased
 * email (E18 to E22, invitations through E19/E15/E13).
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { OrganizationPermission } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { definedOnly, mapLimit } from "../util";
import { Email, IdentifierList, Name, OrganizationId, OrganizationPermissions } from "./support/inputs";
import { argsMatch, containsUnknown, outputsMatch, UNKNOWN } from "./support/lifecycle";
import { holderOf, personKeys } from "./support/handover";
import { assertRosterKeepsAdmins, guardAdminLoss } from "./support/lockout";
import { deleteInvitation, invite, patchMember, reconcileInvitation, removeMember, type Presence } from "./support/membership";
import { normalizeEmail, normalizeIdentifiers, sortedSet, type Identifier } from "../normalize";
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
import { listedInvitations, listedMembers } from "./support/runCache";
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
} from "./support/expiry";

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
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
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

/** A person as the roster sees them live. */
export interface LivePerson {
  status: "active" | "invited" | "expired";
  userId: number | null;
  firstName: string | null;
  lastName: string | null;
  permissions: OrganizationPermission[];
  userIdentifiers: Identifier[];
}

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
}

function livePerson(x: Presence): LivePerson {
  if ("member" in x) {
    const m = x.member;
    return {
      status: "active",
      userId: m.id,
      firstName: m.firstName ?? null,
      lastName: m.lastName ?? null,
      permissions: sortedSet(m.permissions),
      userIdentifiers: normalizeIdentifiers(m.userIdentifiers),
    };
  }
  const i = x.invitation;
  return {
    status: i.expired ? "expired" : "invited",
    userId: null,
    firstName: i.firstName ?? null,
    lastName: i.lastName ?? null,
    permissions: sortedSet(i.organizationPermissions),
    userIdentifiers: [],
  };
}

/** Everyone in the organization by lower-cased email: a member wins over an invitation of the same email. */
async function liveRoster(client: ReviewAdminClient, orgId: number): Promise<Map<string, Presence>> {
  const [members, invitations] = await Promise.all([listedMembers(client, orgId), listedInvitations(client, orgId)]);
  const out = new Map<string, Presence>();
  for (const inv of invitations.values()) out.set(normalizeEmail(inv.email), { invitation: inv });
  for (const m of members.values()) out.set(normalizeEmail(m.email), { member: m });
  return out;
}

type Settings = Pick<
  Inputs,
  "organizationId" | "mode" | "protectedEmails" | "allowAdminRemoval" | "onUnmanaged" | "knownExceptions" | "declaredElsewhere"
>;

function stateOf(inputs: Settings, managed: Record<string, ManagedField[]>, live: Map<string, Presence>): OrganizationMembersState {
  const members: Record<string, LivePerson> = {};
  const unmanaged: OrganizationMembersState["unmanaged"] = [];
  for (const [email, x] of [...live].sort(([a], [b]) => a.localeCompare(b))) {
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
  });
}

/**
 * What the drift gate stops on (unmanagedGate.ts): people of `unmanaged` holding an organization
 * permission (or, with failOnAny, anyone), judged with the settings of `settings`.
 */
function gate(settings: Settings, unmanaged: OrganizationMembersState["unmanaged"]): string[] {
  const holders = unmanaged
    .filter((p) => p.status !== "expired")
    .map((p) => ({
      who: p.email,
      keys: personKeys("member", settings.organizationId, { email: p.email, userId: p.userId }),
      exception: p.email,
      permissions: p.permissions,
      status: p.status,
    }));
  return gateFindings(settings, holders, () => true);
}

const ACCEPT = "Declare them in the roster's members, or list their emails in knownExceptions to accept them as they are";

/** What reconciling would do, person by person. */
interface Plan {
  add: string[];
  change: string[];
  remove: string[];
}

function differs(want: Person, have: LivePerson): boolean {
  if (want.permissions && JSON.stringify(want.permissions) !== JSON.stringify(have.permissions)) return true;
  if (want.userIdentifiers && have.status === "active" && JSON.stringify(want.userIdentifiers) !== JSON.stringify(have.userIdentifiers))
    return true;
  return have.status === "expired";
}

/**
 * Who to add, change and remove. Authoritative removals spare `protectedEmails` and anyone another
 * resource of this run declares (a person moved from the roster to an OrgMember, handover.ts).
 */
function planOf(
  inputs: Inputs,
  live: Record<string, LivePerson>,
  expired: Record<string, string> = {},
): Plan & { handedOver: [string, string][] } {
  const protectedSet = new Set(inputs.protectedEmails ?? []);
  const add = Object.keys(inputs.members).filter((e) => !live[e]);
  const change = Object.keys(inputs.members).filter((e) => live[e] && differs(inputs.members[e]!, live[e]));
  const remove: string[] = [];
  const handedOver: [string, string][] = [];
  if (inputs.mode === "authoritative") {
    for (const e of Object.keys(live)) {
      if (inputs.members[e] || protectedSet.has(e)) continue;
      const holder = holderOf(personKeys("member", inputs.organizationId, { email: e, userId: live[e]!.userId }), inputs.declaredElsewhere);
      if (holder) handedOver.push([e, holder]);
      else remove.push(e);
    }
  }
  // Expired entries go even from an additive roster: past its end a grant is not merely unmanaged.
  for (const e of Object.keys(expired)) if (live[e] && !remove.includes(e)) remove.push(e);
  return { add, change, remove, handedOver };
}

/** The map on `day`: people past their end or before their start count as not declared (support/expiry.ts). */
function onDay(inputs: Inputs, day: string | undefined): MapOnDay<Person> & { now: Inputs } {
  const m = mapOnDay(inputs.members, (p) => p, day);
  return { ...m, now: { ...inputs, members: m.current } };
}

/** Today by the service's clock, asked only when an entry has a date. */
const dayFor = (client: ReviewAdminClient, inputs: Inputs) => dayIfDated(client, Object.values(inputs.members));

/** The active people the plan removes or takes ORG_ADMIN from. */
function losingOf(inputs: Inputs, live: Record<string, LivePerson>, plan: Plan): string[] {
  const takesAdmin = (e: string) =>
    live[e]!.permissions.includes("ORG_ADMIN") &&
    !!inputs.members[e]?.permissions &&
    !inputs.members[e]!.permissions!.includes("ORG_ADMIN");
  return [...plan.remove.filter((e) => live[e]!.status === "active"), ...plan.change.filter(takesAdmin)];
}

/**
 * Refuses a plan that would remove the key's own user or the last org admin (unless allowed).
 * `live` must hold everyone in the organization, managed or not, so admins are counted right.
 */
async function guardLockout(
  client: ReviewAdminClient,
  inputs: Inputs,
  live: Record<string, LivePerson>,
  plan: Plan,
  action: string,
): Promise<void> {
  if (inputs.allowAdminRemoval) return;
  const losing = losingOf(inputs, live, plan);
  const admins = Object.entries(live)
    .filter(([, p]) => p.status === "active" && p.permissions.includes("ORG_ADMIN"))
    .map(([e]) => e);
  await assertRosterKeepsAdmins(
    client,
    inputs.organizationId,
    admins,
    losing.map((email) => ({ email, userId: live[email]!.userId })),
    action,
  );
}

/** Makes the organization match the roster: adds first, then changes, removals last. */
async function reconcile(
  declared: Inputs,
  client: ReviewAdminClient,
  action: string,
  creating: boolean,
): Promise<OrganizationMembersState> {
  const orgId = declared.organizationId;
  const roster = await liveRoster(client, orgId);
  const live = stateOf({ ...declared, mode: "authoritative" }, {}, roster).members;
  const dated = onDay(declared, await dayFor(client, declared));
  const inputs = dated.now;
  const plan = planOf(inputs, live, dated.expired);
  await guardLockout(client, inputs, live, plan, action);
  for (const [email, holder] of plan.handedOver)
    pulumi.log.info(`${action}: left ${email} in place: ${holder} declares them in this program`);
  const note = creating
    ? adoptionNote(
        action,
        "people",
        Object.keys(inputs.members).filter((e) => live[e]),
      )
    : undefined;
  if (note) pulumi.log.info(note);

  for (const e of Object.keys(dated.expired).filter((x) => live[x]))
    pulumi.log.info(`${action}: ${e}: expired on ${dated.expired[e]}, removing them from the organization`);
  const wrote = progressOf(action, plan.add.length + plan.change.length + plan.remove.length, "people");
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
        organizationPermissions:
          want.permissions && JSON.stringify(want.permissions) !== JSON.stringify(have.permissions) ? want.permissions : undefined,
        userIdentifiers:
          want.userIdentifiers && JSON.stringify(want.userIdentifiers) !== JSON.stringify(have.userIdentifiers)
            ? want.userIdentifiers
            : undefined,
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
  const losing = inputs.allowAdminRemoval ? [] : losingOf(inputs, live, plan).flatMap((e) => live[e]!.userId ?? []);
  await guardAdminLoss(client, orgId, losing, action, async () => {
    await writeChanges();
    await writeRemovals();
  });
  const state = definedOnly({ ...stateOf(inputs, managedOf(declared), await liveRoster(client, orgId)), ...dateFields(dated) });
  // The diff judged the state of the last run; who turned up since is reported here, and gated at the next preview.
  enforceGate(
    action,
    { ...inputs, onUnmanaged: inputs.onUnmanaged === "ignore" ? "ignore" : "report" },
    gate(inputs, state.unmanaged),
    ACCEPT,
  );
  return state;
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
  ]),
  label,
  idOf: (s) => `organization/${s.organizationId}`,
  // Authoritative removals hand over, and the drift gate accepts, people the program declares elsewhere.
  handsOver: (i) => (i.mode === "authoritative" || i.onUnmanaged !== "ignore" ? `member:${i.organizationId}:` : undefined),
  claims: (i) =>
    Object.entries(i.members).flatMap(([email, p]) => [
      ...personKeys("member", i.organizationId, { email }),
      ...(p.permissions ? personKeys("permissions", i.organizationId, { email }) : []),
      ...(p.userIdentifiers ? personKeys("identifiers", i.organizationId, { email }) : []),
    ]),

  async diff(olds, news, { client, action, refresh }) {
    // A preview with values not known yet: say it may change, and judge lockout at up.
    if (containsUnknown(news)) {
      const same = news.organizationId === olds.organizationId || (news.organizationId as unknown) === UNKNOWN;
      return { changes: true, replaces: same ? [] : ["organizationId"] };
    }
    if (news.organizationId !== olds.organizationId) return { changes: true, replaces: ["organizationId"], deleteBeforeReplace: false };
    // Identifiers wait quietly for an invitation's acceptance; a person the state shows as
    // invited is looked up (one cached list per run) so identifiers are applied once they accept.
    const members = { ...olds.members };
    const waiting = Object.keys(news.members).filter(
      (e) => news.members[e]!.userIdentifiers && members[e] && members[e].status !== "active",
    );
    if (waiting.length && !refresh) {
      const live = await liveRoster(client, olds.organizationId);
      for (const e of waiting) if (live.get(e)) members[e] = livePerson(live.get(e)!);
    }
    // Everyone live (managed or not), so switching to authoritative shows who would go.
    const everyone = { ...Object.fromEntries((olds.unmanaged ?? []).map(({ email, ...p }) => [email, p])), ...members };
    const dated = onDay(news, await dayFor(client, news));
    const plan = planOf(dated.now, news.mode === "authoritative" ? everyone : members, dated.expired);
    // Said where the drift gate and lockout speak: the preview's messages on this resource.
    for (const e of Object.keys(dated.expired).filter((x) => members[x])) pulumi.log.warn(expiredLine(action, e, dated.expired[e]!));
    if (!refresh && dated.day) warnExpiringSoon(action, dated.soon, dated.day, (e) => e);
    const managedChanged = JSON.stringify(Object.keys(news.members)) !== JSON.stringify(Object.keys(olds.managed ?? {}).sort());
    const settingsChanged =
      managedChanged ||
      JSON.stringify(dated.ends) !== JSON.stringify(olds.expiresOn ?? {}) ||
      news.mode !== olds.mode ||
      JSON.stringify(news.protectedEmails ?? null) !== JSON.stringify(olds.protectedEmails ?? null) ||
      (news.allowAdminRemoval ?? false) !== (olds.allowAdminRemoval ?? false);
    // The drift gate, on who the last run or refresh found, with the program's settings. Refresh
    // (news: the settings of the last up) reports them as drift instead (unmanagedGate.ts).
    const found = gate(news, olds.unmanaged ?? []);
    if (refresh && found.length) return { changes: true, replaces: [] };
    enforceGate(action, news, found, ACCEPT);
    // Anti-lockout at preview, only when the plan takes someone's membership or ORG_ADMIN away.
    if (plan.remove.length || plan.change.length) await guardLockout(client, dated.now, everyone, plan, action);
    return { changes: plan.add.length + plan.change.length + plan.remove.length > 0 || settingsChanged, replaces: [] };
  },

  reconcile: (inputs, { client, action }, creating) => reconcile(inputs, client, action, creating),
  async readLive(state, { client, action }) {
    const listed = stateOf(state, state.managed ?? {}, await liveRoster(client, state.organizationId));
    // What expires soon is counted again from the stored end dates, so a refresh keeps the output current.
    const fresh = definedOnly({ ...listed, ...dateFields(await endsNow(client, state.expiresOn)) });
    const found = gate(fresh, fresh.unmanaged);
    if (found.length && fresh.onUnmanaged !== "ignore") enforceGate(action, { ...fresh, onUnmanaged: "report" }, found, ACCEPT);
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
