/**
 * Invitation: a pending invitation managed on its own (E14, E15, E13, created through E19).
 */
import type * as pulumi from "@pulumi/pulumi";
import { say } from "./support/messages";
import { z } from "zod";
import { organizationScope } from "../../contract/grants";
import type { OrganizationPermission } from "../../contract/types";
import { definedOnly } from "../util";
import { Email, Name, OrganizationId, OrganizationPermissions } from "./support/inputs";
import { argsMatch, outputsMatch, stateHolds } from "./support/lifecycle";
import { personKeys } from "./support/handover";
import {
  deleteInvitation,
  describePresence,
  ensurePresent,
  findPerson,
  invitationLapsed,
  resend,
  type Presence,
} from "../access/orgPeople";
import { normalizeEmail, sortedSet } from "../normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";
import { CalendarDay, standingOf } from "./support/expiry";
import { personGrant, type OwnFields } from "./support/personGrant";
import type { PersonState } from "./support/personTypes";

/** Where an invitation stands; "removed": up withdrew it when its `expiresOn` came. */
export type InvitationStatus = "pending" | "expired" | "accepted" | "removed";

/** Inputs of an Invitation. */
export interface InvitationArgs {
  /** Changing it replaces. */
  organizationId: pulumi.Input<number>;
  /** Compared case-insensitively. Changing it replaces. */
  email: pulumi.Input<string>;
  firstName?: pulumi.Input<string>;
  lastName?: pulumi.Input<string>;
  /** Permissions the person gets on accepting. A change re-invites (the API cannot edit an invitation). */
  permissions?: pulumi.Input<pulumi.Input<OrganizationPermission>[]>;
  /** Re-send an expired invitation on the next up. Default true. */
  resendWhenExpired?: pulumi.Input<boolean>;
  /** Any text; changing it re-sends the invitation on purpose. */
  resendTrigger?: pulumi.Input<string>;
  /**
   * "YYYY-MM-DD" (UTC): the invitation ends at the start of this day; from then on up withdraws it
   * and never re-sends it. One already accepted is a membership, which stays: end it with
   * an OrgMember's `expiresOn`.
   */
  expiresOn?: pulumi.Input<string>;
}

const Inputs = z.strictObject({
  organizationId: OrganizationId,
  email: Email,
  firstName: Name.optional(),
  lastName: Name.optional(),
  permissions: OrganizationPermissions.optional(),
  resendWhenExpired: z.boolean().optional(),
  resendTrigger: z.string().optional(),
  expiresOn: CalendarDay.optional(),
});
type Inputs = z.infer<typeof Inputs>;
argsMatch<InvitationArgs, z.input<typeof Inputs>>(true);

/** What an Invitation stores: its inputs, and where the invitation stands. */
export interface InvitationState extends Omit<PersonState, "allowAdminRemoval"> {
  organizationId: number;
  /** Lower-cased. */
  email: string;
  firstName?: string;
  lastName?: string;
  /** The live permissions of the invitation (the inputs' until it is read). */
  permissions?: OrganizationPermission[];
  resendWhenExpired?: boolean;
  resendTrigger?: string;
  /** `pending`, `expired` or `accepted`. */
  status: InvitationStatus;
  /** When the invitation expires; null once accepted. */
  expiration: string | null;
  /** The person's user id once accepted. */
  userId: number | null;
  /** True when create found the invitation (or the membership) already there. */
  adopted: boolean;
}
stateHolds<InvitationState, Inputs>(true);

const label = (s: { email: string; organizationId: number }) => `Invitation of ${s.email} to organization ${s.organizationId}`;

function stateOf(inputs: Inputs, now: Presence | undefined, adopted: boolean): InvitationState {
  const kept = { ...inputs, email: normalizeEmail(inputs.email), adopted };
  // Withdrawn at its end date: nothing is pending.
  if (!now) return definedOnly({ ...kept, status: "removed", expiration: null, userId: null });
  if ("member" in now) return definedOnly({ ...kept, status: "accepted", expiration: null, userId: now.member.id });
  return definedOnly({
    ...kept,
    // The live permissions, not the inputs': a refresh shows an invitation re-sent behind the
    // program's back with other permissions (test: "refresh shows permissions changed behind its back").
    permissions: sortedSet(now.invitation.organizationPermissions),
    status: now.invitation.expired ? "expired" : "pending",
    expiration: now.invitation.expiration,
    userId: null,
  });
}

/** The Invitation implementation run by the plugin (the steps: support/personGrant.ts). */
export const invitation = personGrant<Inputs, InvitationState, Presence>({
  kind: "Invitation",
  inputs: Inputs,
  outputs: outputsMatch<OwnFields<InvitationState>>()([
    "organizationId",
    "email",
    "firstName",
    "lastName",
    "permissions",
    "resendWhenExpired",
    "resendTrigger",
    "status",
    "expiration",
    "userId",
    "adopted",
  ]),
  label,
  idOf: (s) => `${s.organizationId}/${s.email}`,
  claims: (i) => personKeys("member", i.organizationId, i),
  holds: (s) => personKeys("member", s.organizationId, s),

  scope: organizationScope,
  diffRule: (olds, news) => ({
    replaceOn: ["organizationId", "email"],
    // An accepted invitation is done: nothing of it changes. Names go with the invitation as sent.
    ignore: olds.status === "accepted" ? Object.keys(news) : ["firstName", "lastName"],
    normalize: (field, v) => (field === "email" && typeof v === "string" ? normalizeEmail(v) : v),
  }),
  person: (s) => ({ email: s.email, userId: s.userId }),
  grant: (i) => ({
    scope: organizationScope(i),
    subject: { email: i.email },
    window: { expiresOn: i.expiresOn },
  }),
  // An invitation holds nothing anti-lockout guards: withdrawing one never locks anyone out.
  heldGrant: () => undefined,
  find: (client, s) => findPerson(client, s.organizationId, s.email, "userId" in s ? s.userId : undefined),
  holding: () => true,
  stateOf,
  words: { noneMade: "nobody invited" },

  // Accepted, the invitation is a membership, which its end date does not end: said, not done.
  async expires(olds, news, op) {
    const { action } = op;
    if (olds.status !== "accepted") return true;
    if ((await standingOf(op, news.expiresOn)) === "expired")
      say.warn(
        `${action}: expired on ${news.expiresOn}, but accepted: ${olds.email} stays a member (end it with an OrgMember's expiresOn)`,
      );
    return false;
  },
  moreChanges: async (olds, news, { client }) => news.resendWhenExpired !== false && (await invitationLapsed(client, olds, "pending")),

  async create(inputs, { client, action }) {
    const { found, now } = await ensurePresent(client, inputs, null, action);
    if (found) say.info(`${action}: adopted ${describePresence(found)}`);
    return stateOf(inputs, now, !!found);
  },

  async update(olds, news, { client, action }) {
    const { found, now } = await ensurePresent(client, news, olds.userId, action);
    // A new trigger re-sends on purpose, unless a fresh invitation was just sent, or the
    // invitation was re-sent after this state was written (the answer to our re-send was lost,
    // so the state still holds the old trigger): one email per trigger change.
    const triggered = news.resendTrigger !== undefined && news.resendTrigger !== olds.resendTrigger;
    const resentSince = (inv: { expiration: string }) => !!olds.expiration && Date.parse(inv.expiration) > Date.parse(olds.expiration);
    if (
      triggered &&
      found &&
      "invitation" in found &&
      "invitation" in now &&
      now.invitation === found.invitation &&
      !resentSince(found.invitation)
    ) {
      return stateOf(news, { invitation: await resend(client, news.organizationId, news.email) }, olds.adopted);
    }
    return stateOf(news, now, olds.adopted);
  },

  async expire(olds, news, { client, action }) {
    const live = await findPerson(client, olds.organizationId, olds.email, olds.userId);
    if (live && "invitation" in live) {
      say.info(`${action}: expired on ${news.expiresOn}: withdrawing the invitation`);
      await deleteInvitation(client, olds.organizationId, live.invitation.email);
    }
  },

  async remove(state, { client }) {
    const now = await findPerson(client, state.organizationId, state.email, state.userId);
    if (!now) return;
    if ("member" in now) {
      say.info(`${label(state)} was accepted; deleting the Invitation leaves ${state.email} a member (manage members with OrgMember).`);
      return;
    }
    await deleteInvitation(client, state.organizationId, now.invitation.email);
  },
});

/**
 * A pending invitation to an organization, managed on its own. `status` is `pending`, `expired`
 * or `accepted`. An expired invitation is re-sent on the next up when `resendWhenExpired`
 * (default true); changing `resendTrigger` re-sends on purpose. Once accepted, the resource's
 * work is done: it stays in state as `accepted`, and delete leaves the membership alone (manage
 * members with OrgMember).
 */
export interface Invitation extends Outputs<InvitationState> {}
export class Invitation extends ReviewAdminResource {
  constructor(name: string, args: InvitationArgs, opts?: pulumi.CustomResourceOptions) {
    super(invitation.definition, name, args, opts);
  }
}
