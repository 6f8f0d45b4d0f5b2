/**
 * Operations on a person in an organization, shared by OrgMember and Invitation: find them
 * (member or invitation), invite or add them (batched E19), bring an invitation in line, and
 * remove them. All reads go through the run's shared lists (shared.ts).
 */
import type { Invitation, Member, OrganizationPermission } from "../../contract";
import type { ReviewAdminClient } from "../client";
import { ResourceError, isStatus, normalizeEmail, sortedSet } from "./base";
import { addUser } from "./addUsersBatch";
import {
  forgetInvitation, forgetMember, memberByEmail, orgInvitations, orgMembers, rememberInvitation, rememberMember,
} from "./shared";

/** A person as a member, as an invitation, or (undefined) neither. */
export type Live = { member: Member } | { invitation: Invitation } | undefined;

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
export async function findLive(client: ReviewAdminClient, orgId: number, email: string, userId?: number | null): Promise<Live> {
  const members = await orgMembers(client, orgId);
  const member = (userId ? members.get(userId) : undefined) ?? (await memberByEmail(client, orgId, email));
  if (member) return { member };
  const invitation = (await orgInvitations(client, orgId)).get(normalizeEmail(email));
  return invitation ? { invitation } : undefined;
}

/** Adds an existing platform user as a member, or invites a new email (E19, batched with concurrent adds). */
export async function invite(client: ReviewAdminClient, inputs: PersonInputs, action: string): Promise<NonNullable<Live>> {
  const outcome = await addUser(client, inputs.organizationId, inputs.permissions, {
    email: inputs.email,
    firstName: inputs.firstName ?? inputs.email.split("@")[0],
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

/**
 * An invitation exists: re-invite with new permissions when they differ (the API cannot edit an
 * invitation), re-send it when expired (unless resendWhenExpired is false), else keep it.
 */
export async function reconcileInvitation(
  client: ReviewAdminClient,
  inputs: PersonInputs,
  inv: Invitation,
  action: string,
): Promise<NonNullable<Live>> {
  const orgId = inputs.organizationId;
  if (inputs.permissions && JSON.stringify(sortedSet(inv.organizationPermissions)) !== JSON.stringify(sortedSet(inputs.permissions))) {
    await deleteInvitation(client, orgId, inv.email);
    return invite(client, inputs, action);
  }
  if (inv.expired && inputs.resendWhenExpired !== false) return { invitation: await resend(client, orgId, inv.email) };
  return { invitation: inv };
}

function ignore404(err: unknown): void {
  if (!isStatus(err, 404)) throw err;
}
