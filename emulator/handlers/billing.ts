/**
 * E7 GetOrganizationBilling, E8 GetParentOrganizationBilling, E28 GetDatabaseBilling: bills for
 * the month asked (default: the current month by the emulator clock), computed by the model
 * (model/billing.ts over model/billingHistory.ts).
 *
 * Billing is summary information (spec, concept 7), so org admins keep it when a database has
 * orgAdminAccess false (model/access.ts: canReadDatabase ignores that flag).
 */
import { canAdministerOrganization, canReadDatabase } from "../model/access";
import { page } from "../paging";
import { accessibleDatabase, accessibleOrganization } from "./guards";
import type { HandlerGroup } from "./types";

/** E7, E8 and E28 by operation id (handlers/index.ts merges the groups into the table). */
export const billingHandlers = {
  /** E7: org admin or parent org admin; one record per database of the organization, paged by database id. */
  GetOrganizationBilling: (ctx) => {
    const org = accessibleOrganization(ctx, canAdministerOrganization);
    const month = ctx.store.billing.month(ctx.params.year, ctx.params.month);
    return page(ctx, ctx.store.billing.ofOrganization(org.id, month));
  },

  /** E8: org admin or parent org admin; active and suspended sizes over the organization and its sub-organizations. */
  GetParentOrganizationBilling: (ctx) => {
    const org = accessibleOrganization(ctx, canAdministerOrganization);
    const month = ctx.store.billing.month(ctx.params.year, ctx.params.month);
    return { data: ctx.store.billing.ofParent(org.id, month) };
  },

  /** E28: DB_ADMIN, or org admin or parent org admin of the owner (whatever orgAdminAccess says). */
  GetDatabaseBilling: (ctx) => {
    const db = accessibleDatabase(ctx, canReadDatabase);
    const month = ctx.store.billing.month(ctx.params.year, ctx.params.month);
    return { data: ctx.store.billing.ofDatabase(db, month) };
  },
} satisfies HandlerGroup;
