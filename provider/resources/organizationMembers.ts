/**
 * OrganizationMembers: the whole membership of one organization as a map keyed by lower-cased
 * email. `mode: "authoritative"` adds, updates and removes (pending invitations included) so the
 * organization equals the map; `mode: "additive"` never removes. Either way `unmanaged` lists who
 * is in the organization but not in the map, for access reviews.
 *
 * Costs: one paged members list and one invitations list per run, adds batched into one E19 call
 * per permission set (per 100 people), one E22 per changed member, one E20/E13 per removal.
 *
 * For `pulumi preview --diff` to read as an access review, refresh writes the live roster into
 * the stored inputs: removals then show as `-` entries of `members`, adds as `+`, changes as `~`.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { OrganizationPermission, uniqueArray, type Invitation, type Member } from "../../contract";
import type { ReviewAdminClient } from "../client";
import { currentClient } from "../settings";
import {
  ResourceError, SCHEMA_VERSION, UNKNOWN, checkWith, containsUnknown, definedOnly, normalizeEmail, sortedSet, type ResourceImpl,
} from "./base";
import { deleteInvitation, invite, reconcileInvitation, removeMember } from "./people";
import { ReviewAdminResource } from "./resource";
import { assertAdminRemovalAllowed, orgInvitations, orgMembers, rememberMember } from "./shared";
import { IdentifierList, normalizeIdentifiers } from "./userIdentifiers";
import { mapLimit, rosterCrud, rosterMode, type RosterMode } from "./roster";

/** One person of the roster. Fields left out are not managed for that person. */
export interface RosterMemberInput {
  firstName?: pulumi.Input<string>;
  lastName?: pulumi.Input<string>;
  permissions?: pulumi.Input<pulumi.Input<OrganizationPermission>[]>;
  userIdentifiers?: pulumi.Input<pulumi.Input<{ abbreviation: pulumi.Input<string>; label: pulumi.Input<string> }>[]>;
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
}

const Person = z.strictObject({
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  permissions: uniqueArray(OrganizationPermission).transform((a) => sortedSet(a)!).optional(),
  userIdentifiers: IdentifierList.optional(),
});
type Person = z.infer<typeof Person>;

const emailKey = z.string().trim().toLowerCase().pipe(z.email({ message: "must be an email address" }));

const Inputs = z.strictObject({
  organizationId: z.number().int().positive({ message: "must be a positive integer organization id" }),
  mode: rosterMode,
  members: z.record(z.string(), Person).transform((m, ctx) => {
    const out: Record<string, Person> = {};
    for (const [raw, person] of Object.entries(m)) {
      const parsed = emailKey.safeParse(raw);
      if (!parsed.success) {
        ctx.addIssue({ code: "custom", message: `'${raw}' must be an email address`, path: [raw] });
        continue;
      }
      if (out[parsed.data]) ctx.addIssue({ code: "custom", message: `'${raw}' is listed twice (emails are compared case-insensitively)`, path: [raw] });
      out[parsed.data] = person;
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  }),
  protectedEmails: z.array(emailKey).transform((a) => sortedSet(a)!).optional(),
  allowAdminRemoval: z.boolean().optional(),
});
type Inputs = z.infer<typeof Inputs>;

/** A person as the roster sees them live. */
interface LivePerson {
  status: "active" | "invited" | "expired";
  userId: number | null;
  firstName: string | null;
  lastName: string | null;
  permissions: OrganizationPermission[];
  userIdentifiers: { abbreviation: string; label: string }[];
}

type ManagedField = "firstName" | "lastName" | "permissions" | "userIdentifiers";

interface State {
  organizationId: number;
  mode: RosterMode;
  /** Live state of the people in the map (authoritative: everyone in the organization). */
  members: Record<string, LivePerson>;
  /** People in the organization (members and invitations) who are not in the map. */
  unmanaged: ({ email: string } & LivePerson)[];
  /** Which fields the program manages for each person in the map. */
  managed: Record<string, ManagedField[]>;
  protectedEmails?: string[];
  allowAdminRemoval?: boolean;
  schemaVersion: number;
}

function livePerson(x: { member: Member } | { invitation: Invitation }): LivePerson {
  if ("member" in x) {
    return { status: "active", userId: x.member.id, firstName: x.member.firstName ?? null, lastName: x.member.lastName ?? null, permissions: sortedSet(x.member.permissions)!, userIdentifiers: normalizeIdentifiers(x.member.userIdentifiers) };
  }
  return { status: x.invitation.expired ? "expired" : "invited", userId: null, firstName: x.invitation.firstName ?? null, lastName: x.invitation.lastName ?? null, permissions: sortedSet(x.invitation.organizationPermissions)!, userIdentifiers: [] };
}

/** Everyone in the organization by lower-cased email: members first, then invitations. */
async function liveRoster(client: ReviewAdminClient, orgId: number): Promise<Map<string, { member: Member } | { invitation: Invitation }>> {
  const [members, invitations] = await Promise.all([orgMembers(client, orgId), orgInvitations(client, orgId)]);
  const out = new Map<string, { member: Member } | { invitation: Invitation }>();
  for (const inv of invitations.values()) out.set(normalizeEmail(inv.email), { invitation: inv });
  for (const m of members.values()) out.set(normalizeEmail(m.email), { member: m });
  return out;
}

function stateOf(
  inputs: Pick<Inputs, "organizationId" | "mode" | "protectedEmails" | "allowAdminRemoval">,
  managed: Record<string, ManagedField[]>,
  live: Map<string, { member: Member } | { invitation: Invitation }>,
): State {
  const members: Record<string, LivePerson> = {};
  const unmanaged: State["unmanaged"] = [];
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
    schemaVersion: SCHEMA_VERSION,
  });
}

/** What reconciling would do, person by person. */
interface Plan {
  add: string[];
  change: string[];
  remove: string[];
}

function differs(want: Person, have: LivePerson): boolean {
  if (want.permissions && JSON.stringify(want.permissions) !== JSON.stringify(have.permissions)) return true;
  if (want.userIdentifiers && have.status === "active" && JSON.stringify(want.userIdentifiers) !== JSON.stringify(have.userIdentifiers)) return true;
  return have.status === "expired";
}

function planOf(inputs: Inputs, live: Record<string, LivePerson>): Plan {
  const protectedSet = new Set(inputs.protectedEmails ?? []);
  const add = Object.keys(inputs.members).filter((e) => !live[e]);
  const change = Object.keys(inputs.members).filter((e) => live[e] && differs(inputs.members[e], live[e]));
  const remove = inputs.mode === "authoritative" ? Object.keys(live).filter((e) => !inputs.members[e] && !protectedSet.has(e)) : [];
  return { add, change, remove };
}

/**
 * Refuses a plan that would remove the key's own user or the last org admin (unless allowed).
 * `live` must hold everyone in the organization, managed or not, so admins are counted right.
 */
async function guardLockout(client: ReviewAdminClient, inputs: Inputs, live: Record<string, LivePerson>, plan: Plan, action: string): Promise<void> {
  if (inputs.allowAdminRemoval) return;
  const losing = [
    ...plan.remove.filter((e) => live[e].status === "active"),
    ...plan.change.filter((e) => live[e].permissions.includes("ORG_ADMIN") && inputs.members[e].permissions && !inputs.members[e].permissions!.includes("ORG_ADMIN")),
  ];
  if (losing.length === 0) return;
  const admins = Object.entries(live).filter(([, p]) => p.status === "active" && p.permissions.includes("ORG_ADMIN")).map(([e]) => e);
  const adminsAfter = admins.filter((e) => !losing.includes(e));
  if (admins.length > 0 && adminsAfter.length === 0) {
    throw new ResourceError(
      `${action}: refused: it would leave organization ${inputs.organizationId} with no org admin (removing ${admins.join(", ")}). Keep one in the map, add one to protectedEmails, or set allowAdminRemoval: true.`,
    );
  }
  for (const email of losing) {
    const userId = live[email].userId;
    if (userId) await assertAdminRemovalAllowed(client, inputs.organizationId, userId, action);
  }
}

const label = (s: { organizationId: number }) => `OrganizationMembers of organization ${s.organizationId}`;
const hint = { forbidden: "the API key needs org admin on this organization", notFound: "is the organization id right?" };

/** Makes the organization match the roster: adds first, then changes, removals last. */
async function reconcile(inputs: Inputs, action: string): Promise<State> {
  const client = currentClient();
  const orgId = inputs.organizationId;
  const roster = await liveRoster(client, orgId);
  const live = stateOf({ ...inputs, mode: "authoritative" }, {}, roster).members;
  const plan = planOf(inputs, live);
  await guardLockout(client, inputs, live, plan, action);

  // Adds run concurrently so the batcher sends one E19 per permission set.
  await Promise.all(
    plan.add.map(async (email) => {
      const want = inputs.members[email];
      const got = await invite(client, { organizationId: orgId, email, ...want }, action);
      if ("member" in got && want.userIdentifiers) await patch(client, orgId, got.member, { userIdentifiers: want.userIdentifiers });
    }),
  );
  await mapLimit(plan.change, 8, async (email) => {
    const want = inputs.members[email];
    const x = roster.get(email)!;
    if ("invitation" in x) return void (await reconcileInvitation(client, { organizationId: orgId, email, ...want }, x.invitation, action));
    const body: Record<string, unknown> = {};
    if (want.permissions && JSON.stringify(want.permissions) !== JSON.stringify(live[email].permissions)) body.organizationPermissions = want.permissions;
    if (want.userIdentifiers && JSON.stringify(want.userIdentifiers) !== JSON.stringify(live[email].userIdentifiers)) body.userIdentifiers = want.userIdentifiers;
    await patch(client, orgId, x.member, body);
  });
  await mapLimit(plan.remove, 8, async (email) => {
    const x = roster.get(email)!;
    if ("member" in x) await removeMember(client, orgId, x.member.id);
    else await deleteInvitation(client, orgId, x.invitation.email);
  });
  return stateOf(inputs, managedOf(inputs), await liveRoster(client, orgId));
}

function managedOf(inputs: Inputs): Record<string, ManagedField[]> {
  const fields: ManagedField[] = ["firstName", "lastName", "permissions", "userIdentifiers"];
  return Object.fromEntries(Object.entries(inputs.members).map(([email, p]) => [email, fields.filter((f) => p[f] !== undefined)]));
}

async function patch(client: ReviewAdminClient, orgId: number, member: Member, body: Record<string, unknown>): Promise<void> {
  if (Object.keys(body).length === 0) return;
  const updated = await client.call("PatchOrganizationUser", { orgId, userId: member.id }, body);
  await rememberMember(client, orgId, updated);
}

/**
 * The inputs a live state stands for, written back by refresh so the next preview shows drift:
 * managed fields come back as they are live, and in authoritative mode people outside the map
 * appear too, so the preview shows them being removed.
 */
function inputsOf(state: State): Inputs {
  const members: Record<string, Person> = {};
  for (const [email, p] of Object.entries(state.members)) {
    const fields = state.managed[email] ?? ["permissions"];
    members[email] = definedOnly({
      firstName: fields.includes("firstName") ? (p.firstName ?? undefined) : undefined,
      lastName: fields.includes("lastName") ? (p.lastName ?? undefined) : undefined,
      permissions: fields.includes("permissions") ? p.permissions : undefined,
      userIdentifiers: fields.includes("userIdentifiers") ? p.userIdentifiers : undefined,
    });
  }
  return definedOnly({
    organizationId: state.organizationId,
    mode: state.mode,
    members,
    protectedEmails: state.protectedEmails,
    allowAdminRemoval: state.allowAdminRemoval,
  });
}

/** The plugin implementation. */
export const organizationMembersImpl: ResourceImpl = {
  async check(_olds, news) {
    return checkWith(Inputs, news);
  },

  async diff(_id, olds: State, news: Inputs) {
    // A preview with values not known yet: say it may change, and judge lockout at up.
    if (containsUnknown(news)) return { changes: true, replaces: news.organizationId === olds.organizationId || news.organizationId === (UNKNOWN as any) ? [] : ["organizationId"] };
    if (news.organizationId !== olds.organizationId) return { changes: true, replaces: ["organizationId"], deleteBeforeReplace: false };
    // Everyone live (managed or not), so switching to authoritative shows who would go.
    const everyone = { ...Object.fromEntries((olds.unmanaged ?? []).map(({ email, ...p }) => [email, p])), ...olds.members };
    const plan = planOf(news, news.mode === "authoritative" ? everyone : olds.members);
    const managedChanged = JSON.stringify(Object.keys(news.members)) !== JSON.stringify(Object.keys(olds.managed ?? {}).sort());
    const settingsChanged =
      managedChanged ||
      news.mode !== olds.mode ||
      JSON.stringify(news.protectedEmails ?? null) !== JSON.stringify(olds.protectedEmails ?? null) ||
      (news.allowAdminRemoval ?? false) !== (olds.allowAdminRemoval ?? false);
    const changes = plan.add.length + plan.change.length + plan.remove.length > 0 || settingsChanged;
    // Anti-lockout at preview, only when the plan takes someone's membership or ORG_ADMIN away.
    if (plan.remove.length || plan.change.length) {
      await guardLockout(currentClient(), news, everyone, plan, `updating ${label(news)}`);
    }
    return { changes, replaces: [] };
  },

  ...rosterCrud<Inputs, State>({
    label,
    hint,
    idOf: (inputs) => `organization/${inputs.organizationId}`,
    reconcile,
    async readLive(props) {
      const state = stateOf(props, props.managed ?? {}, await liveRoster(currentClient(), props.organizationId));
      return { state, inputs: inputsOf(state) };
    },
    releaseNote: "no longer managed; its members stay as they are.",
  }),
};

/** The whole membership of one organization, authoritative or additive. */
export class OrganizationMembers extends ReviewAdminResource {
  declare readonly organizationId: pulumi.Output<number>;
  declare readonly mode: pulumi.Output<RosterMode>;
  /** Live state of the people in the map (authoritative: everyone in the organization). */
  declare readonly members: pulumi.Output<Record<string, LivePerson>>;
  /** Who is in the organization (members and invitations) but not in the map. */
  declare readonly unmanaged: pulumi.Output<({ email: string } & LivePerson)[]>;

  constructor(name: string, args: OrganizationMembersArgs, opts?: pulumi.CustomResourceOptions) {
    super("OrganizationMembers", name, args, ["unmanaged", "managed", "schemaVersion", "protectedEmails", "allowAdminRemoval"], opts);
  }
}
