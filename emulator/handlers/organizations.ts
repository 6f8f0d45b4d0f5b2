/** E9 GetOrganizationDatabases, E16 GetOrganizationProjects, E17 GetOrganizationUserIdentifiers. */
import { canAdministerOrganization, canManageMembers } from "../model/access";
import { page } from "../paging";
import { databaseView, projectView } from "../views";
import { accessibleOrganization } from "./guards";
import type { HandlerGroup } from "./types";

/** E9, E16 and E17 by operation id (handlers/index.ts merges the groups into the table). */
export const organizationHandlers = {
  /** E9: org admin or parent org admin; every database of the organization (summary, so orgAdminAccess does not hide any). */
  GetOrganizationDatabases: (ctx) => {
    const org = accessibleOrganization(ctx, canAdministerOrganization);
    return page(ctx, ctx.store.databases.of(org.id).map(databaseView));
  },

  /** E16: org admin or parent org admin; every project of the organization's databases. */
  GetOrganizationProjects: (ctx) => {
    const { store } = ctx;
    const org = accessibleOrganization(ctx, canAdministerOrganization);
    const projects = store.databases.of(org.id).flatMap((db) => store.databases.projectsOf(db.id));
    return page(
      ctx,
      projects.map((p) => projectView(store, p)),
    );
  },

  /**
   * E17: org admin; the distinct identifiers the organization's members carry, by abbreviation
   * then label. Identifiers have no id, so `after` here is the position of the last item returned.
   */
  GetOrganizationUserIdentifiers: (ctx) => {
    const { store } = ctx;
    const org = accessibleOrganization(ctx, canManageMembers);
    const distinct = new Map<string, { abbreviation: string; label: string }>();
    for (const m of store.members.of(org.id)) {
      for (const i of m.userIdentifiers)
        distinct.set(JSON.stringify([i.abbreviation, i.label]), { abbreviation: i.abbreviation, label: i.label });
    }
    const sorted = [...distinct.values()].sort((a, b) => a.abbreviation.localeCompare(b.abbreviation) || a.label.localeCompare(b.label));
    const positioned = sorted.map((item, index) => ({ item, position: index + 1 }));
    const result = page(ctx, positioned, { key: (p) => p.position });
    return { ...result, data: result.data.map((p) => p.item) };
  },
} satisfies HandlerGroup;
