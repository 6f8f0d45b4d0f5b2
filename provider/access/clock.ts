/**
 * The one service clock. Access ends, invitations expire and activity is stamped by the service's
 * clock (the Date header of its answers, which the client carries forward), not by this machine's:
 * a CI runner's clock may be off. This machine's clock stands in only before any answer, or when
 * the service cannot be reached.
 */
import { dayOf } from "../../contract/grants";
import type { ReviewAdminClient } from "../client";
import { currentUser } from "./runCache";

/** Now (unix ms) by the service's clock as this run knows it; this machine's before any answer. Sends nothing. */
export function serviceNow(client: ReviewAdminClient): number {
  return client.serviceNow() ?? Date.now();
}

/**
 * Now (unix ms) by the service's clock. Before any answer of this run it asks the service who the
 * key is (one cached read, which anti-lockout makes anyway); only when that fails does this
 * machine's clock decide.
 */
export async function serviceTime(client: ReviewAdminClient): Promise<number> {
  if (client.serviceNow() === undefined) await currentUser(client).catch(() => undefined);
  return serviceNow(client);
}

/** Today (UTC, YYYY-MM-DD) by the service's clock (`serviceTime`). */
export async function today(client: ReviewAdminClient): Promise<string> {
  return dayOf(await serviceTime(client));
}

/**
 * True once the instant `at` (unix ms) has passed by the service's clock. What this run already
 * knows goes first (`serviceNow`): the service is asked only to confirm, so a run where nothing
 * looks past sends nothing.
 */
export async function hasPassed(client: ReviewAdminClient, at: number): Promise<boolean> {
  return at <= serviceNow(client) && at <= (await serviceTime(client));
}
