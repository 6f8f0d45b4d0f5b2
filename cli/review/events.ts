/**
 * The review's one read of each organization's activity log: E10 over [begin, asOf] in pages of
 * 10,000 (the spec's largest), so the requests are ceil(events in the window / 10,000), at least
 * one, per organization. Events after "as of" are not read, so the packet describes the world as
 * of that time even while the log grows.
 */
import type { ActivityEvent } from "../../contract/types";
import type { ReviewAdminClient } from "../../provider/client";
import { explainFailure } from "../../provider/failures";

/** Events per E10 page: the spec's maximum for the activity endpoints. */
export const EVENT_PAGE = 10_000;

/** One organization's events in the window, by (timestamp, id), and whether they came redacted. */
export interface OrganizationLog {
  events: ActivityEvent[];
  /** Data and description null: read with a parent organization key. */
  redacted: boolean;
}

/** Reads the events of `orgId` with begin <= timestamp <= asOf (each once, in order). */
export async function readLog(client: ReviewAdminClient, orgId: number, begin: number, asOf: number): Promise<OrganizationLog> {
  const byId = new Map<number, ActivityEvent>();
  try {
    for await (const e of client.paginate("GetOrganizationEvents", { orgId, begin, end: asOf + 1, limit: EVENT_PAGE })) {
      if (e.timestamp >= begin && e.timestamp <= asOf && !byId.has(e.id)) byId.set(e.id, e);
    }
  } catch (err) {
    throw explainFailure(`reading the activity log of organization ${orgId}`, err);
  }
  const events = [...byId.values()].sort((a, b) => a.timestamp - b.timestamp || a.id - b.id);
  return { events, redacted: events.some((e) => e.data === null && e.description === null) };
}
