/**
 * E7 GetOrganizationBilling, E8 GetParentOrganizationBilling, E28 GetDatabaseBilling: bills
 * computed by model/billingHistory.ts from `store.billing`, for the month asked (default: the current month
 * by the emulator clock).
 *
 * Billing is summary information (spec, concept 7), so org admins keep it when a database has
 * orgAdminAccess false (model/access.ts: canReadDatabase ignores that flag).
 */
import type { DatabaseBilling } from "../../contract";
import { canAdministerOrganization, canReadDatabase } from "../model/access";
import {
  databaseBilling,
  monthBounds,
  monthOf,
  parentAggregate,
  recordStatus,
  seedBillingHistory,
  statusAt,
  type ProjectHistory,
} from "../model/billingHistory";
import { BadRequest } from "../errors";
import type { DatabaseRecord, ProjectRecord } from "../model/records";
import type { Store } from "../model/store";
import { page } from "../paging";
import { accessibleDatabase, accessibleOrganization } from "./guards";
import type { HandlerContext, HandlerGroup } from "./types";

/**
 * The project's history, made on first use for a project the seed did not cover (one created
 * later by the control API or a benchmark), and brought in line with the project's `suspended`
 * flag, which the control API may have changed since.
 */
export function projectHistory(store: Store, project: ProjectRecord): ProjectHistory {
  const now = store.clock.now();
  let history = store.billing[project.id];
  if (!history) {
    // Seeded by the project id, so the history does not depend on the order of requests.
    history = seedBillingHistory(project.id, [{ id: project.id, created: project.created, eca: project.eca }], now)[project.id];
    store.billing[project.id] = history;
    store.changed();
  }
  const state = statusAt(history, now);
  if (project.suspended && state === "ACTIVE") {
    recordStatus(history, now, "suspended");
    store.changed();
  } else if (!project.suspended && state === "SUSPENDED") {
    recordStatus(history, now, "reactivated");
    store.changed();
  }
  return history;
}

/** The month asked for (default: the current one); a month after the current one is refused. */
function requestedMonth(ctx: HandlerContext): { year: number; month: number; now: number } {
  const now = ctx.store.clock.now();
  const current = monthOf(now);
  const year: number = ctx.params.year ?? current.year;
  const month: number = ctx.params.month ?? current.month;
  if (year > current.year) throw new BadRequest("year", `must not be after the current year (${current.year})`);
  if (year === current.year && month > current.month) {
    throw new BadRequest("month", `must not be after the current month (${current.year}-${String(current.month).padStart(2, "0")})`);
  }
  return { year, month, now };
}

/** A database's bill for the month. */
function billOf(store: Store, db: DatabaseRecord, year: number, month: number, now: number): DatabaseBilling {
  const projects = store.projectsOf(db.id).map((p) => ({
    id: p.id,
    name: p.name,
    displayName: p.displayName,
    eca: p.eca,
    partial: p.partial,
    created: p.created,
    history: projectHistory(store, p),
  }));
  return databaseBilling({ id: db.id, name: db.name, created: db.created }, projects, year, month, now);
}

/** Databases of an organization that existed during the month (created before its end, or now). */
function databasesInMonth(store: Store, orgId: number, year: number, month: number, now: number): DatabaseRecord[] {
  const until = Math.min(monthBounds(year, month).end, now + 1);
  return store.databasesOf(orgId).filter((db) => Date.parse(db.created) < until);
}

/** The organization and all its sub-organizations, at any depth. */
function withDescendants(store: Store, orgId: number): number[] {
  const ids = [orgId];
  for (let i = 0; i < ids.length; i++) ids.push(...store.subOrganizations(ids[i]).map((o) => o.id));
  return ids;
}

/** E7, E8 and E28 by operation id (handlers/index.ts merges the groups into the table). */
export const billingHandlers = {
  /** E7: org admin or parent org admin; one record per database of the organization, paged by database id. */
  GetOrganizationBilling: (ctx) => {
    const { store } = ctx;
    const org = accessibleOrganization(ctx, canAdministerOrganization);
    const { year, month, now } = requestedMonth(ctx);
    const records = databasesInMonth(store, org.id, year, month, now).map((db) => billOf(store, db, year, month, now));
    return page(ctx, records);
  },

  /** E8: org admin or parent org admin; active and suspended sizes over the organization and its sub-organizations. */
  GetParentOrganizationBilling: (ctx) => {
    const { store } = ctx;
    const org = accessibleOrganization(ctx, canAdministerOrganization);
    const { year, month, now } = requestedMonth(ctx);
    const records = withDescendants(store, org.id).flatMap((id) =>
      databasesInMonth(store, id, year, month, now).map((db) => billOf(store, db, year, month, now)),
    );
    return { data: parentAggregate(records) };
  },

  /** E28: DB_ADMIN, or org admin or parent org admin of the owner (whatever orgAdminAccess says). */
  GetDatabaseBilling: (ctx) => {
    const db = accessibleDatabase(ctx, canReadDatabase);
    const { year, month, now } = requestedMonth(ctx);
    return { data: billOf(ctx.store, db, year, month, now) };
  },
} satisfies HandlerGroup;
