/**
 * E13 DeleteOrganizationInvitation, E14 GetOrganizationInvitations, E15
 * PostOrganizationInvitationResend. The spec leaves their access "not stated": they need org
 * admin, like the member endpoints (model/access.ts canManageMembers). Order of checks: organization
 * (404), org admin (403), invitation (404).
 */
import { canManageMembers } from "../model/access";
import { invitationView } from "../views";
import { accessibleOrganization } from "./guards";
import type { HandlerGroup } from "./types";

/** E13, E14 and E15 by operation id (handlers/index.ts merges the groups into the table). */
export const invitationHandlers = {
  /** E13: deletes a pending (or expired) invitation named by email; 204 (the success body is not shown). */
  DeleteOrganizationInvitation: (ctx) => {
    const orgId = accessibleOrganization(ctx, canManageMembers).id;
    ctx.store.invitations.delete(orgId, ctx.body.email, ctx.caller.userId);
    return { status: 204 };
  },

  /** E14: pending and expired invitations, in id order, as data.invitations (not paged). */
  GetOrganizationInvitations: (ctx) => {
    const orgId = accessibleOrganization(ctx, canManageMembers).id;
    return { data: { invitations: ctx.store.invitations.of(orgId).map((i) => invitationView(ctx.store, i)) } };
  },

  /** E15: sends the invitation again; its expiration is reset to 14 days from now. */
  PostOrganizationInvitationResend: (ctx) => {
    const orgId = accessibleOrganization(ctx, canManageMembers).id;
    return { data: invitationView(ctx.store, ctx.store.invitations.resend(orgId, ctx.body.email, ctx.caller.userId)) };
  },
} satisfies HandlerGroup;
