/**
 * E18 GetOrganizationUsers, E19 PostOrganizationUsers, E20 DeleteOrganizationUser,
 * E21 GetOrganizationUser, E22 PatchOrganizationUser. All need org admin of the organization.
 *
 * Order of checks everywhere: the organization must exist (404), then the caller must be its
 * org admin (403), then the member must exist (404). So a caller without the role learns nothing
 * about who is a member.
 */
import { canManageMembers } from "../model/access";
import { page } from "../paging";
import { invitationView, memberView } from "../views";
import { accessibleOrganization } from "./guards";
import type { HandlerGroup } from "./types";

/** E18 to E22 by operation id (handlers/index.ts merges the groups into the table). */
export const memberHandlers = {
  /** E18: members with their permissions, in user id order. */
  GetOrganizationUsers: (ctx) => {
    const orgId = accessibleOrganization(ctx, canManageMembers).id;
    // Views are built for the page only: a 10,000-member organization is listed 200 at a time.
    const result = page(ctx, ctx.store.members.of(orgId), { key: (m) => m.userId });
    return { ...result, data: result.data.map((m) => memberView(ctx.store, m)) };
  },

  /** E19: adds existing users, invites new emails, reports unparseable ones (store.addUsers holds the rules). */
  PostOrganizationUsers: (ctx) => {
    const orgId = accessibleOrganization(ctx, canManageMembers).id;
    const { users, permissions } = ctx.body;
    const outcome = ctx.store.members.addUsers(orgId, users, permissions ?? [], ctx.caller.userId);
    return {
      data: {
        invalid: outcome.invalid,
        invites: outcome.invites.map((i) => invitationView(ctx.store, i)),
        users: outcome.users.map((m) => memberView(ctx.store, m)),
      },
    };
  },

  /** E20: removes the member from the organization and its projects; 204 (the success body is not shown). */
  DeleteOrganizationUser: (ctx) => {
    const orgId = accessibleOrganization(ctx, canManageMembers).id;
    ctx.store.members.remove(orgId, ctx.params.userId, ctx.caller.userId);
    return { status: 204 };
  },

  /** E21: one member. */
  GetOrganizationUser: (ctx) => {
    const orgId = accessibleOrganization(ctx, canManageMembers).id;
    return { data: memberView(ctx.store, ctx.store.members.get(orgId, ctx.params.userId)) };
  },

  /** E22: a field left out of the body is left as it is. */
  PatchOrganizationUser: (ctx) => {
    const orgId = accessibleOrganization(ctx, canManageMembers).id;
    const { organizationPermissions, userIdentifiers } = ctx.body;
    const m = ctx.store.members.update(
      orgId,
      ctx.params.userId,
      { permissions: organizationPermissions, userIdentifiers },
      ctx.caller.userId,
    );
    return { data: memberView(ctx.store, m) };
  },
} satisfies HandlerGroup;
