/** E2 GetCurrentUser, E3 GetOrganizations, E6 GetOrganization: who the key is and what it belongs to. */
import { canReadOrganization } from "../model/access";
import type { Caller, OrganizationRecord } from "../model/records";
import type { Store } from "../model/store";
import { page } from "../paging";
import { currentUserView, organizationView } from "../views";
import { accessibleOrganization } from "./guards";
import type { HandlerGroup } from "./types";

/** Organizations the caller belongs to (an organization key: its own), plus their sub-organizations. */
function organizationsOfCaller(store: Store, caller: Caller): OrganizationRecord[] {
  const own = caller.kind === "organization" ? [caller.organizationId] : store.members.organizationsOf(caller.userId);
  const ids = new Set(own);
  for (const id of own) for (const sub of store.organizations.subOrganizations(id)) ids.add(sub.id);
  return [...ids].map((id) => store.organizations.get(id));
}

/** E2, E3 and E6 by operation id (handlers/index.ts merges the groups into the table). */
export const accountHandlers = {
  /** E2: any valid key; an organization key answers with its own synthetic user. */
  GetCurrentUser: ({ store, caller }) => ({ data: currentUserView(store, store.users.get(caller.userId)) }),

  /** E3: always every organization the caller is a member of, and their sub-organizations. */
  GetOrganizations: (ctx) => page(ctx, organizationsOfCaller(ctx.store, ctx.caller).map(organizationView)),

  /** E6: member of the organization, or parent org admin. */
  GetOrganization: (ctx) => ({ data: organizationView(accessibleOrganization(ctx, canReadOrganization)) }),
} satisfies HandlerGroup;
