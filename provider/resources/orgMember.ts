/**
 * OrgMember: one person's membership of an organization, by email (E18 to E22, invitations
 * through E19/E15/E13).
 */
import type * as pulumi from "@pulumi/pulumi";
import { say } from "./support/messages";
import { z } from "zod";
import { organizationScope } from "../../contract/grants";
import type { OrganizationPermission } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { definedOnly } from "../util";
import { Email, IdentifierList, Name, OrganizationId, OrganizationPermissions } from "./support/inputs";
import { argsMatch, containsUnknown, outputsMatch } from "./support/lifecycle";
import { memberClaims, personKeys } from "./support/handover";
import { adminLossGuard } from "./support/lockout";
import {
  bringInLine,
  describePresence,
  findPerson,
  invitationLapsed,
  livePerson,
  memberByEmail,
  removePerson,
  type Presence,
} from "../access/orgPeople";
import { normalizeEmail, sameIdentifiers, type Identifier } from "../normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";
import { CalendarDay } from "./support/expiry";
import { personGrant, type OwnFields } from "./support/personGrant";
import type { PersonState } from "./support/personTypes";

/** Where a person stands in an organization; "removed": up took them out when their `expiresOn` came. */
export type MemberStatus = "active" | "invited" | "expired" | "removed";

/** Inputs of an OrgMember. */
export interface OrgMemberArgs {
  /** The organization. Changing it replaces the resource. */
  organizationId: pulumi.Input<number>;
  /** The person's email; compared case-insensitively and stored lower-cased. Changing it replaces. */
  email: pulumi.Input<string>;
  /** Used when inviting someone new; the API cannot change a member's name afterwards. Defaults to the email's local part. */
  firstName?: pulumi.Input<string>;
  /** Used when inviting someone new. Defaults to "". */
  lastName?: pulumi.Input<string>;
  /** Organization permissions. Left out: not managed (never read or changed). */
  permissions?: pulumi.Input<pulumi.Input<OrganizationPermission>[]>;
  /** User identifiers. Left out: not managed. Applied once the person is a member. */
  userIdentifiers?: pulumi.Input<pulumi.Input<{ abbreviation: pulumi.Input<string>; label: pulumi.Input<string> }>[]>;
  /** Re-send an expired invitation on the next up. Default true. */
  resendWhenExpired?: pulumi.Input<boolean>;
  /** Allow removing ORG_ADMIN from the key's own user or the last org admin. Default false. */
  allowAdminRemoval?: pulumi.Input<boolean>;
  /**
   * "YYYY-MM-DD" (UTC): membership ends at the start of this day. From then on up removes the
   * person (or their pending invitation), anti-lockout still holding; `status` becomes "removed".
   */
  expiresOn?: pulumi.Input<string>;
}

const Inputs = z.strictObject({
  organizationId: OrganizationId,
  email: Email,
  firstName: Name.optional(),
  lastName: Name.optional(),
  permissions: OrganizationPermissions.optional(),
  userIdentifiers: IdentifierList.optional(),
  resendWhenExpired: z.boolean().optional(),
  allowAdminRemoval: z.boolean().optional(),
  expiresOn: CalendarDay.optional(),
});
type Inputs = z.infer<typeof Inputs>;
argsMatch<OrgMemberArgs, z.input<typeof Inputs>>(true);

/** What an OrgMember stores: its inputs, where the person stands, and the live managed fields. */
export interface OrgMemberState extends PersonState {
  organizationId: number;
  /** Lower-cased. */
  email: string;
  firstName?: string;
  lastName?: string;
  resendWhenExpired?: boolean;
  /** `active`, `invited` or `expired`. */
  status: MemberStatus;
  /** The platform user id; null until the invitation is accepted. */
  userId: number | null;
  /** When the pending invitation expires; null for members. */
  invitationExpiration: string | null;
  /** True when create found the person already a member or invited and took them over. */
  adopted: boolean;
  /** Live organization permissions (of the member, or of the pending invitation). */
  permissions: OrganizationPermission[];
  /** Live user identifiers (empty while invited). */
  userIdentifiers: Identifier[];
  /** Which optional fields the program manages (given in the inputs). */
  managed: ("permissions" | "userIdentifiers")[];
}

/** True while the state shows the person not yet a member and the inputs manage identifiers: they wait for acceptance. */
const waiting = (olds: OrgMemberState, news: Inputs) => olds.status !== "active" && news.userIdentifiers !== undefined;

const MANAGED = ["permissions", "userIdentifiers"] as const;

function stateOf(inputs: Inputs, now: Presence | undefined, adopted: boolean): OrgMemberState {
  const managed = MANAGED.filter((f) => inputs[f] !== undefined);
  // Every input but the managed fields, which the state holds as they are live.
  const { permissions: _p, userIdentifiers: _u, ...given } = inputs;
  const kept = { ...given, email: normalizeEmail(inputs.email), adopted, managed };
  // Past the end date and removed: nothing is held.
  if (!now) {
    const none = { userId: null, invitationExpiration: null, permissions: [], userIdentifiers: [] };
    return definedOnly({ ...kept, status: "removed", ...none });
  }
  const { status, userId, permissions, userIdentifiers } = livePerson(now);
  const invitationExpiration = "invitation" in now ? now.invitation.expiration : null;
  return definedOnly({ ...kept, status, userId, invitationExpiration, permissions, userIdentifiers });
}

/** The guard of this membership's writes that take ORG_ADMIN or the membership (lockout.ts). */
const guardOf = (client: ReviewAdminClient, s: { organizationId: number; allowAdminRemoval?: boolean }, action: string) =>
  adminLossGuard(client, organizationScope(s), action, s.allowAdminRemoval);

/** True when a person the state shows as invited is a member now, without the identifiers the inputs want. */
async function acceptedWithOtherIdentifiers(client: ReviewAdminClient, olds: OrgMemberState, news: Inputs): Promise<boolean> {
  const now = await findPerson(client, olds.organizationId, olds.email, null);
  return !!now && "member" in now && !sameIdentifiers(now.member.userIdentifiers, news.userIdentifiers ?? []);
}

/** Removes the person's membership (`DELETE /v1/organizations/{orgId}/users/{userId}`, anti-lockout unless allowed) or pending invitation (`DELETE /v1/organizations/{orgId}/invitations`); gone already is done. */
const remove = (client: ReviewAdminClient, s: OrgMemberState, action: string) =>
  removePerson(client, s.organizationId, s, guardOf(client, s, action));

/** The OrgMember implementation run by the plugin (the steps: support/personGrant.ts). */
export const orgMember = personGrant<Inputs, OrgMemberState, Presence>({
  kind: "OrgMember",
  inputs: Inputs,
  outputs: outputsMatch<OwnFields<OrgMemberState>>()([
    "organizationId",
    "email",
    "firstName",
    "lastName",
    "resendWhenExpired",
    "status",
    "userId",
    "invitationExpiration",
    "adopted",
    "permissions",
    "userIdentifiers",
    "managed",
  ]),
  label: (s) => `OrgMember ${s.email} in organization ${s.organizationId}`,
  idOf: (s) => `${s.organizationId}/${s.email}`,
  claims: (i) => memberClaims(i.organizationId, i, i),
  holds: (s) => personKeys("member", s.organizationId, s),

  scope: organizationScope,
  diffRule(olds, news) {
    return {
      replaceOn: ["organizationId", "email"],
      // Names go with the invitation only (the API cannot rename a member); identifiers wait for acceptance.
      ignore: ["firstName", "lastName", ...(waiting(olds, news) ? ["userIdentifiers"] : [])],
      normalize: (field, v) => (field === "email" && typeof v === "string" ? normalizeEmail(v) : v),
    };
  },
  person: (s) => ({ email: s.email, userId: s.userId }),
  grant: (i) => ({
    scope: organizationScope(i),
    subject: { email: normalizeEmail(i.email) },
    ...definedOnly({ permissions: i.permissions, identifiers: i.userIdentifiers }),
    window: { expiresOn: i.expiresOn },
  }),
  heldGrant: (s) =>
    s.status === "removed"
      ? undefined
      : { scope: organizationScope(s), subject: { email: s.email, userId: s.userId }, permissions: s.permissions, status: s.status },
  find: (client, s) => findPerson(client, s.organizationId, s.email, "userId" in s ? s.userId : undefined),
  holding: () => true,
  stateOf,
  optional: MANAGED,
  // A create that adopts an org admin with permissions lacking ORG_ADMIN (up refuses it too: writeMember's guard).
  adoptionGuard: {
    known: (i) => [i.organizationId, i.email, i.permissions, i.allowAdminRemoval],
    find: async (client, i) => {
      const m = await memberByEmail(client, i.organizationId, i.email);
      return m && { scope: organizationScope(i), subject: { email: m.email, userId: m.id }, permissions: m.permissions, status: "active" };
    },
  },
  words: { noneMade: "nobody added" },

  async moreChanges(olds, news, { client, refresh }, replaced) {
    // Identifiers cannot be applied before the invitation is accepted: while the state says
    // invited they are no change, unless the person has accepted since (one cached list per run).
    const accepted =
      waiting(olds, news) &&
      !refresh &&
      !replaced &&
      !containsUnknown(news.userIdentifiers) &&
      (await acceptedWithOtherIdentifiers(client, olds, news));
    const resend =
      news.resendWhenExpired !== false &&
      (await invitationLapsed(client, { status: olds.status, expiration: olds.invitationExpiration }, "invited"));
    return accepted || resend;
  },

  async create(inputs, { client, action }) {
    const { found, now } = await bringInLine(client, inputs, null, action, guardOf(client, inputs, action));
    if (found)
      say.info(
        `${action}: adopted ${describePresence(found)}; only the fields this program manages change, and destroy removes them (set retainOnDelete to keep them)`,
      );
    return stateOf(inputs, now, !!found);
  },

  async update(olds, news, { client, action }) {
    const { now } = await bringInLine(client, news, olds.userId, action, guardOf(client, news, action));
    return stateOf(news, now, olds.adopted);
  },

  async expire(olds, news, { client, action }) {
    say.info(`${action}: expired on ${news.expiresOn}: removing ${olds.email} from the organization`);
    await remove(client, { ...olds, allowAdminRemoval: news.allowAdminRemoval }, action);
  },

  async remove(state, { client, action }) {
    if (state.adopted) say.warn(`${action}: removing ${state.email}, who was a member before this program adopted them`);
    await remove(client, state, action);
  },
});

/**
 * A person's membership of an organization, by email.
 *
 * - Create adds the person to the organization (batched with concurrent creates): an existing platform user becomes
 *   a member, anyone else is invited. A person already a member, or already invited, is adopted
 *   (`adopted: true`): only the fields the program manages are changed.
 * - `permissions` and `userIdentifiers` are managed only when given. Identifiers are applied once
 *   the person is a member.
 * - `status` is `active`, `invited` or `expired`. A pending invitation counts as present; an
 *   expired one shows as a change and is re-sent on the next up unless `resendWhenExpired`
 *   is false. A permission change on a pending invitation re-invites (the API cannot edit one).
 * - Delete removes the member or withdraws the pending invitation; anti-lockout refuses to
 *   remove the key's own user or the last org admin unless `allowAdminRemoval` is true.
 */
export interface OrgMember extends Outputs<Omit<OrgMemberState, "managed">> {}
export class OrgMember extends ReviewAdminResource {
  constructor(name: string, args: OrgMemberArgs, opts?: pulumi.CustomResourceOptions) {
    super(orgMember.definition, name, args, opts);
  }
}
