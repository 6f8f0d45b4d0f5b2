/**
 * A person in an organization, for OrgMember, Invitation and the OrganizationMembers roster: find
 * them (member or invitation), invite or add them (batched E19), bring an invitation in line,
 * re-send it, and remove them. Every read goes through the run's shared lists (runCache.ts).
 */
import type { Invitation, Member, OrganizationPermission } from "../../../contract/types";
import type { ReviewAdminClient } from "../../client";
import { ignore404, ResourceError } from "../../failures";
import { addUser } from "./addUserBatcher";
import { normalizeEmail, normalizeIdentifiers, sameSet, sortedSet, type Identifier } from "../../normalize";
import {
  forgetInvitation,
  forgetMember,
  memberByEmail,
  listedInvitations,
  listedMembers,
  rememberInvitation,
  rememberMember,
} from "./runCache";

/** Where a person stands: a member, or a pending or expired invitation. */
export type Presence = { member: Member } | { invitation: Invitation };

/** "the existing member ada@x.example (user 1003)" or "the pending invitation of ada@x.example", for messages. */
export function describePresence(p: Presence): string {
  if ("member" in p) return `the existing member ${p.member.email} (user ${p.member.id})`;
  return `the ${p.invitation.expired ? "expired" : "pending"} invitation of ${p.invitation.email}`;
}

/** A person as the OrganizationMembers roster sees them live (its state holds these). */
export interface LivePerson {
  status: "active" | "invited" | "expired";
  userId: number | null;
  firstName: string | null;
  lastName: string | null;
  permissions: OrganizationPermission[];
  userIdentifiers: Identifier[];
}

/** A member or invitation as the OrganizationMembers roster sees and stores it. */
export function livePerson(x: Presence): LivePerson {
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
export async function liveRoster(client: ReviewAdminClient, orgId: number): Promise<Map<string, Presence>> {
  const [members, invitations] = await Promise.all([listedMembers(client, orgId), listedInvitations(client, orgId)]);
  const out = new Map<string, Presence>();
  for (const inv of invitations.values()) out.set(normalizeEmail(inv.email), { invitation: inv });
  for (const m of members.values()) out.set(normalizeEmail(m.email), { member: m });
  return out;
}

/** What inviting a person needs. */
export interface PersonInputs {
  organizationId: number;
  email: string;
  firstName?: string;
  lastName?: string;
  permissions?: OrganizationPermission[];
  resendWhenExpired?: boolean;
}

/** Finds the person as a member (by user id, then email) or as a pending or expired invitation. */
export async function findPerson(
  client: ReviewAdminClient,
  orgId: number,
  email: string,
  userId?: number | null,
): Promise<Presence | undefined> {
  const members = await listedMembers(client, orgId);
  const member = (userId ? members.get(userId) : undefined) ?? (await memberByEmail(client, orgId, email));
  if (member) return { member };
  const invitation = (await listedInvitations(client, orgId)).get(normalizeEmail(email));
  return invitation ? { invitation } : undefined;
}

/** Adds an existing platform user as a member, or invites a new email (E19, batched with concurrent adds). */
export async function invite(client: ReviewAdminClient, inputs: PersonInputs, action: string): Promise<Presence> {
  const outcome = await addUser(client, inputs.organizationId, inputs.permissions, {
    email: inputs.email,
    firstName: inputs.firstName ?? inputs.email.split("@")[0] ?? inputs.email,
    lastName: inputs.lastName ?? "",
  });
  if (outcome.kind === "invalid") {
    throw new ResourceError(`${action}: the service refused the email address '${inputs.email}' as invalid`);
  }
  if (outcome.kind === "member") {
    await rememberMember(client, inputs.organizationId, outcome.member);
    return { member: outcome.member };
  }
  await rememberInvitation(client, inputs.organizationId, outcome.invitation);
  return { invitation: outcome.invitation };
}

/** Re-sends an invitation (E15), resetting its expiration. */
export async function resend(client: ReviewAdminClient, orgId: number, email: string): Promise<Invitation> {
  const resent = await client.call("PostOrganizationInvitationResend", { orgId }, { email });
  await rememberInvitation(client, orgId, resent);
  return resent;
}

/** Deletes a pending or expired invitation (E13); one already gone counts as done. */
export async function deleteInvitation(client: ReviewAdminClient, orgId: number, email: string): Promise<void> {
  await client.call("DeleteOrganizationInvitation", { orgId }, { email }).catch(ignore404);
  await forgetInvitation(client, orgId, email);
}

/** Removes a member (E20); one already gone counts as done. */
export async function removeMember(client: ReviewAdminClient, orgId: number, userId: number): Promise<void> {
  await client.call("DeleteOrganizationUser", { orgId, userId }).catch(ignore404);
  await forgetMember(client, orgId, userId);
}

/** Sets a member's permissions and/or identifiers (E22); nothing is sent for an empty change. */
export async function patchMember(
  client: ReviewAdminClient,
  orgId: number,
  member: Member,
  body: { organizationPermissions?: OrganizationPermission[]; userIdentifiers?: { abbreviation: string; label: string }[] },
): Promise<Member> {
  if (body.organizationPermissions === undefined && body.userIdentifiers === undefined) return member;
  const updated = await client.call("PatchOrganizationUser", { orgId, userId: member.id }, body);
  await rememberMember(client, orgId, updated);
  return updated;
}

/**
 * An invitation exists: re-invite with new permissions when they differ (the API cannot edit an
 * invitation), re-send it when expired (unless resendWhenExpired is false), else keep it.
 */
export async function reconcileInvitation(
  client: ReviewAdminClient,
  inputs: PersonInputs,
  inv: Invitation,
  action: string,
): Promise<Presence> {
  const orgId = inputs.organizationId;
  if (inputs.permissions && !sameSet(inv.organizationPermissions, inputs.permissions)) {
    await deleteInvitation(client, orgId, inv.email);
    return invite(client, inputs, action);
  }
  if (inv.expired && inputs.resendWhenExpired !== false) return { invitation: await resend(client, orgId, inv.email) };
  return { invitation: inv };
}

/**
 * Brings a person to being present: invites or adds someone absent, reconciles a pending
 * invitation, keeps a member as they are. Returns what was found before (undefined: nobody) and
 * what is there now.
 */
export async function ensurePresent(
  client: ReviewAdminClient,
  inputs: PersonInputs,
  userId: number | null | undefined,
  action: string,
): Promise<{ found: Presence | undefined; now: Presence }> {
  const found = await findPerson(client, inputs.organizationId, inputs.email, userId);
  if (!found) return { found, now: await invite(client, inputs, action) };
  if ("member" in found) return { found, now: found };
  return { found, now: await reconcileInvitation(client, inputs, found.invitation, action) };
}
