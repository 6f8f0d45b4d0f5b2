/**
 * OrganizationMembers: the whole membership of one organization as a map keyed by lower-cased
 * email (E18 to E22, invitations through E19/E15/E13).
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { OrganizationPermission } from "../../contract/types";
import { organizationScope } from "../../contract/grants";
import { compareText, definedOnly } from "../util";
import { Email, IdentifierList, Name, OrganizationId, OrganizationPermissions, readEmail } from "./support/inputs";
import { argsMatch, outputsMatch } from "./support/lifecycle";
import { memberClaims } from "./support/handover";
import { liveRoster, livePerson, writeOrganizationRoster, type LivePerson, type Presence } from "../access/orgPeople";
import { sortedSet } from "../normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";
import { DeclaredElsewhere, onUnmanagedSchema, rosterMode, type RosterInternals } from "./support/roster";
import { grantRoster } from "./support/grantRoster";
import type { OnUnmanaged, RosterMode } from "../access/rosterMode";
import { CalendarDay, checkWindow } from "./support/expiry";

export type { LivePerson } from "../access/orgPeople";

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
      const read = readEmail(raw);
      if (!("email" in read)) {
        ctx.addIssue({ code: "custom", message: `'${raw}' ${read.problem}`, path: [raw] });
        continue;
      }
      if (out[read.email])
        ctx.addIssue({ code: "custom", message: `'${raw}' is listed twice (emails are compared case-insensitively)`, path: [raw] });
      out[read.email] = person;
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
  /** Undeclared people found when the program first applied the roster, with what each held: the drift gate passes them while they hold no more (access/gate.ts; absent before 0.3.0). */
  foundWhenAdopted?: Record<string, string[]>;
}

type Managed = Record<string, ManagedField[]>;

function stateOf(inputs: Inputs, managed: Managed, live: Map<string, Presence>): OrganizationMembersState {
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
  });
}

const MANAGED_FIELDS: ManagedField[] = ["firstName", "lastName", "permissions", "userIdentifiers"];

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

/** The OrganizationMembers implementation run by the plugin (the steps: grantRoster.ts). */
export const organizationMembers = grantRoster<Inputs, OrganizationMembersState, LivePerson, Map<string, Presence>, Managed>({
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
  idOf: (s) => `organization/${s.organizationId}`,
  // Authoritative removals hand over, and the drift gate accepts, people the program declares elsewhere.
  handsOver: (i) => (i.mode === "authoritative" || i.onUnmanaged !== "ignore" ? `member:${i.organizationId}:` : undefined),
  claims: (i) => Object.entries(i.members).flatMap(([email, p]) => memberClaims(i.organizationId, { email }, p)),
  releaseNote: "no longer managed; its members stay as they are.",

  scopeKind: "organization",
  scopeId: (x) => x.organizationId,
  deleteBeforeReplace: false,
  mapField: "members",
  settingRules: [
    { key: "onUnmanaged", absent: "failOnPrivileged" },
    { key: "knownExceptions", absent: [], meaning: "accepted as they are" },
    { key: "protectedEmails", absent: [], meaning: "never removed" },
    { key: "allowAdminRemoval", absent: false },
    { key: "declaredElsewhere", absent: {} },
  ],
  words: {
    entries: "people",
    adopted: "people",
    name: (email) => email,
    handedOver: (email, holder) => `left ${email} in place: ${holder} declares them in this program`,
    expired: (email, end) => `${email}: expired on ${end}, removing them from the organization`,
    removedWhy: "not in the members of this authoritative roster",
    dropped: () => "stays in the organization as they are (additive roster)",
    addedOutside: "added outside this program",
    declare: "Declare them in the roster's members, or list their emails in knownExceptions to accept them as they are",
  },
  order: compareText,
  grants: (i) =>
    Object.fromEntries(
      Object.entries(i.members).map(([email, p]) => [
        email,
        {
          scope: organizationScope(i),
          subject: { email },
          permissions: p.permissions,
          identifiers: p.userIdentifiers,
          window: { startsOn: p.startsOn, expiresOn: p.expiresOn },
        },
      ]),
    ),
  onDay: (i, keys) => ({ ...i, members: Object.fromEntries(keys.map((e) => [e, i.members[e]!])) }),
  protectedKeys: (i) => i.protectedEmails ?? [],
  // The user ids a state holds split a long list into chains read at once (access/splitList.ts).
  read: (client, id, stored) =>
    liveRoster(
      client,
      id,
      stored && [...Object.values(stored.members ?? {}), ...(stored.unmanaged ?? [])].flatMap((p) => (p.userId ? [p.userId] : [])),
    ),
  managedOf: (i) =>
    Object.fromEntries(Object.entries(i.members).map(([email, p]) => [email, MANAGED_FIELDS.filter((f) => p[f] !== undefined)])),
  storedManaged: (s) => s.managed ?? {},
  managedKeys: (s) => Object.keys(s.managed ?? {}),
  stateOf,
  entries: (s) => s.members ?? {},
  unmanaged: (s) => Object.fromEntries((s.unmanaged ?? []).map(({ email, ...p }) => [email, p])),
  liveGrant: (scope, email, p) => ({
    scope,
    subject: { email, userId: p.userId },
    permissions: p.permissions,
    identifiers: p.userIdentifiers,
    status: p.status,
  }),
  write: writeOrganizationRoster,
  // Identifiers wait quietly for an invitation's acceptance; a person the state shows as invited is
  // looked up (one cached list per run) so identifiers are applied once they accept.
  async storedEntries(olds, news, op) {
    const stored = olds.members ?? {};
    const waiting = Object.keys(news.members).filter((e) => news.members[e]!.userIdentifiers && stored[e] && stored[e].status !== "active");
    if (!waiting.length || op.refresh) return stored;
    const members = { ...stored };
    const live = await liveRoster(op.client, olds.organizationId);
    for (const e of waiting) if (live.get(e)) members[e] = livePerson(live.get(e)!);
    return members;
  },
  inputsOf,
});

/**
 * The whole membership of one organization, as a map keyed by email.
 *
 * - `mode: "authoritative"` adds, updates and removes (pending invitations included) so the
 *   organization equals the map, except `protectedEmails`; `mode: "additive"` never removes.
 * - `unmanaged` lists who is in the organization but not in the map, for access reviews.
 * - Refresh writes the live roster into the stored inputs, so `pulumi preview --diff` shows each
 *   person added (`+`), changed (`~`) or removed (`-`) under `members`.
 * - Costs per run: one paged members list and one invitations list, adds batched into one add
 *   request per permission set (per 100 people), one update per changed member, one delete per
 *   removal.
 * - Deleting the roster stops managing; it removes nobody.
 */
export interface OrganizationMembers extends Outputs<Omit<OrganizationMembersState, "managed">> {}
export class OrganizationMembers extends ReviewAdminResource {
  constructor(name: string, args: OrganizationMembersArgs, opts?: pulumi.CustomResourceOptions) {
    super(organizationMembers.definition, name, args, opts);
  }
}
