/**
 * E10 GetOrganizationEvents, E11 GetOrganizationEventsAfter, E12 GetRecentOrganizationEvents:
 * the organization's own activity log (organization-level events only; a parent's log does not
 * include its sub-organizations' events).
 *
 * Redaction: "with a parent organization key, data and description of each event are null".
 * Read as: every event read with a parent organization key (the organization key of an
 * organization that has sub-organizations) is redacted, the parent's own events included; and
 * so is every event read by a caller who reaches the organization only as parent org admin (an
 * org admin of the parent reading a sub-organization's log), who acts as that key does.
 */
import { buildPath } from "../../contract";
import { canAdministerOrganization, isOrgAdmin, isParentOrganizationKey } from "../model/access";
import { eventView } from "../model/eventLog";
import { accessibleOrganization } from "./guards";
import type { OrganizationContext, HandlerGroup } from "./types";

/** Default page size of the activity endpoints (spec: 1..10000, default 1000). */
export const DEFAULT_EVENT_LIMIT = 1000;

/** The organization whose log is read (after the access check), whether to redact, and the page size. */
function logRequest(ctx: OrganizationContext): { orgId: number; redact: boolean; limit: number } {
  const org = accessibleOrganization(ctx, canAdministerOrganization);
  const redact = isParentOrganizationKey(ctx.store, ctx.caller) || !isOrgAdmin(ctx.store, ctx.caller, org.id);
  return { orgId: org.id, redact, limit: ctx.params.limit ?? DEFAULT_EVENT_LIMIT };
}

/** E10, E11 and E12 by operation id (handlers/index.ts merges the groups into the table). */
export const eventHandlers = {
  /**
   * E10: begin <= timestamp < end, by (timestamp, id). A page never splits events sharing a
   * timestamp (it may exceed limit); links.next begins at the last timestamp + 1.
   */
  GetOrganizationEvents: (ctx) => {
    const { orgId, redact, limit } = logRequest(ctx);
    const { begin, end } = ctx.params;
    const page = ctx.store.events.range([orgId], begin, end, limit);
    let next: string | null = null;
    if (page.nextBegin !== null) {
      next = ctx.baseUrl + buildPath(ctx.routes.routes.GetOrganizationEvents, { orgId, begin: page.nextBegin, end, limit });
    }
    return { data: page.events.map((e) => eventView(e, redact)), next };
  },

  /** E11: events with an id above eventId, by id; links.next continues after the page's last id. */
  GetOrganizationEventsAfter: (ctx) => {
    const { orgId, redact, limit } = logRequest(ctx);
    const page = ctx.store.events.after([orgId], ctx.params.eventId, limit);
    let next: string | null = null;
    if (page.nextAfter !== null) {
      next = ctx.baseUrl + buildPath(ctx.routes.routes.GetOrganizationEventsAfter, { orgId, eventId: page.nextAfter, limit });
    }
    return { data: page.events.map((e) => eventView(e, redact)), next };
  },

  /** E12: the most recent events, oldest first, as data.events. */
  GetRecentOrganizationEvents: (ctx) => {
    const { orgId, redact, limit } = logRequest(ctx);
    return {
      data: {
        events: ctx.store.events.recent([orgId], limit).map((e) => eventView(e, redact)),
      },
    };
  },
} satisfies HandlerGroup;
