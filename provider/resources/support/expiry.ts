/**
 * Expiring access (issue 26): the one place that says what `expiresOn` and `startsOn` mean and
 * what day it is.
 *
 * A grant with `expiresOn: "2026-12-01"` gives access up to the end of 30 November UTC: access
 * ends at the START of the `expiresOn` day (UTC), so on that day it is already gone. `startsOn`
 * (rosters only) is the first day of access. Outside that window a grant counts as not declared:
 * preview says "expired on <date>, will be removed" and up removes it, even from an additive
 * roster; anti-lockout still holds.
 *
 * "Today" is the service's day (access/clock.ts), so access ends by the service's clock, not a CI
 * runner's.
 */
import { say } from "./messages";
import { z } from "zod";
import type { ReviewAdminClient } from "../../client";
import { today } from "../../access/clock";
import { onDay } from "../../access/plan";
import { daysBetween, isCalendarDay, standingOn, type GrantWindow, type Standing } from "../../../contract/grants";

export { isCalendarDay };

/** Schema of `expiresOn` / `startsOn`: a calendar day in UTC, YYYY-MM-DD. */
export const CalendarDay = z.string().refine(isCalendarDay, {
  message: 'must be a calendar day written YYYY-MM-DD (UTC), e.g. "2026-12-31"',
});

/** The end and start of one grant, as its inputs hold them. */
export type Window = GrantWindow;

/** Refuses an end on or before the start, naming `expiresOn` (for a zod superRefine; `path` leads to the grant). */
export function checkWindow(w: Window, ctx: z.RefinementCtx, path: (string | number)[] = []): void {
  if (w.expiresOn && w.startsOn && isCalendarDay(w.expiresOn) && isCalendarDay(w.startsOn) && w.expiresOn <= w.startsOn) {
    ctx.addIssue({
      code: "custom",
      path: [...path, "expiresOn"],
      message: `must be after startsOn (${w.startsOn}): access ends at the start of the expiresOn day, so ${w.expiresOn} would give none`,
    });
  }
}

export type { Standing };

/** Where a grant stands on `day` (the grant model's rule, contract/grants.ts), "soon" within expiringSoonDays. */
export function standing(w: Window, day: string, soonDays: number): Standing {
  return standingOn(w, day, soonDays);
}

/** True when any of the grants has a date: only then is the service asked for today. */
export function hasDates(windows: Iterable<Window>): boolean {
  for (const w of windows) if (w.expiresOn || w.startsOn) return true;
  return false;
}

/** The preview line for a grant whose end has passed. */
export function expiredLine(action: string, who: string, expiresOn: string): string {
  return `${action}: ${who}: expired on ${expiresOn}, will be removed`;
}

/** Warns of grants that end within the window: "user 1003 expires on 2026-11-26 (in 1 day)". */
export function warnExpiringSoon(action: string, soon: Record<string, string>, day: string, name: (key: string) => string): void {
  const lines = Object.entries(soon).map(([key, end]) => {
    const n = daysBetween(day, end);
    return `${name(key)} expires on ${end} (in ${n} day${n === 1 ? "" : "s"})`;
  });
  if (lines.length) say.warn(`${action}: access expiring soon: ${lines.join(", ")}`);
}

/** Today by the service's clock when one of `windows` has a date; undefined (nothing asked) otherwise. */
export async function dayIfDated(client: ReviewAdminClient, windows: Window[]): Promise<string | undefined> {
  return hasDates(windows) ? today(client) : undefined;
}

/** The stored end dates counted again for a refresh: which are soon, which have passed. */
export async function endsNow(client: ReviewAdminClient, ends: Record<string, string> | undefined, soonDays: number) {
  const all = ends ?? {};
  const day = Object.keys(all).length ? await today(client) : undefined;
  return onDay(Object.fromEntries(Object.entries(all).map(([k, end]) => [k, { window: { expiresOn: end } }])), day, soonDays);
}

/** A roster state's date fields: absent when empty, so states without dates stay as they were. */
export function dateFields(m: { ends: Record<string, string>; soon: Record<string, string>; expired: Record<string, string> }) {
  const nonEmpty = (r: Record<string, string>) => (Object.keys(r).length ? r : undefined);
  return { expiresOn: nonEmpty(m.ends), expiringSoon: nonEmpty(m.soon), expired: nonEmpty(m.expired) };
}

/** Where a grant stands today by the service's clock ("active" without an end date: nothing is asked). */
export async function standingOf(
  op: { client: ReviewAdminClient; run: { soonDays(): number } },
  expiresOn: string | undefined,
): Promise<Standing> {
  return expiresOn ? standing({ expiresOn }, await today(op.client), op.run.soonDays()) : "active";
}
