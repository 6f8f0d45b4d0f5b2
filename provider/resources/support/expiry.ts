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
 * "Today" is the service's day: the Date header of its answers (provider/client: serviceNow),
 * so access ends by the service's clock, not a CI runner's. The machine's clock is the fallback
 * only when the service cannot be reached.
 */
import { say } from "./messages";
import { z } from "zod";
import type { ReviewAdminClient } from "../../client";
import { resolveSettings } from "../../settings";
import { currentUser } from "./runCache";

const DAY_FORMAT = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar day written YYYY-MM-DD ("2026-02-30" is not one). */
export function isCalendarDay(text: string): boolean {
  const m = DAY_FORMAT.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === text;
}

/** Schema of `expiresOn` / `startsOn`: a calendar day in UTC, YYYY-MM-DD. */
export const CalendarDay = z.string().refine(isCalendarDay, {
  message: 'must be a calendar day written YYYY-MM-DD (UTC), e.g. "2026-12-31"',
});

/** The end and start of one grant, as its inputs hold them. */
export interface Window {
  expiresOn?: string;
  startsOn?: string;
}

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

/** A day as YYYY-MM-DD in UTC. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Today (UTC, YYYY-MM-DD) by the service's clock. Before any answer of this run it asks the
 * service who the key is (one cached read, which anti-lockout makes anyway); only when that
 * fails does the machine's clock decide.
 */
export async function today(client: ReviewAdminClient): Promise<string> {
  return dayOf(await serviceTime(client));
}

/** Now (unix ms) by the service's clock, as `today` asks it: one cached read at most; the machine's clock when that fails. */
export async function serviceTime(client: ReviewAdminClient): Promise<number> {
  if (client.serviceNow() === undefined) await currentUser(client).catch(() => undefined);
  return client.serviceNow() ?? Date.now();
}

/**
 * Whether an instant (ISO 8601) has passed by the service's clock. This machine's clock (or the
 * service's time already known in this run) goes first: the service is asked (one cached read,
 * serviceTime) only to confirm, so a run where nothing looks past sends nothing.
 */
export async function hasPassed(client: ReviewAdminClient, iso: string): Promise<boolean> {
  const at = Date.parse(iso);
  return at <= (client.serviceNow() ?? Date.now()) && at <= (await serviceTime(client));
}

/** Whole days from `from` to `to` (both YYYY-MM-DD). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** N of `expiringSoon`: the setting reviewadmin:expiringSoonDays, default 14. */
export function expiringSoonDays(): number {
  try {
    return resolveSettings().expiringSoonDays ?? 14;
  } catch {
    return 14;
  }
}

/** Where one grant stands on `day`. */
export type Standing = "active" | "soon" | "expired" | "notYet";

/** Where a grant stands on `day`: expired from its `expiresOn` day on, "soon" within expiringSoonDays of it. */
export function standing(w: Window, day: string, soonDays = expiringSoonDays()): Standing {
  if (w.expiresOn && day >= w.expiresOn) return "expired";
  if (w.startsOn && day < w.startsOn) return "notYet";
  if (w.expiresOn && daysBetween(day, w.expiresOn) <= soonDays) return "soon";
  return "active";
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

/** A roster's map as it stands on one day, key -> end date in each record (rosters: OrganizationMembers, DatabaseUsers). */
export interface MapOnDay<E> {
  /** The entries in their window: what the roster declares today. */
  current: Record<string, E>;
  /** Every end date the map declares. */
  ends: Record<string, string>;
  /** Entries ending within expiringSoonDays. */
  soon: Record<string, string>;
  /** Entries past their end: removed, even by an additive roster. */
  expired: Record<string, string>;
  /** Today, when an entry has a date (else undefined: nothing was asked). */
  day?: string;
}

/** Splits a roster's map by where each entry stands on `day` (undefined: every entry is current). */
export function mapOnDay<E>(map: Record<string, E>, windowOf: (e: E) => Window, day: string | undefined): MapOnDay<E> {
  const out: MapOnDay<E> = { current: {}, ends: {}, soon: {}, expired: {}, day };
  for (const [key, e] of Object.entries(map)) {
    const w = windowOf(e);
    if (w.expiresOn) out.ends[key] = w.expiresOn;
    const st = day ? standing(w, day) : "active";
    if (st === "expired") out.expired[key] = w.expiresOn!;
    else if (st !== "notYet") out.current[key] = e;
    if (st === "soon") out.soon[key] = w.expiresOn!;
  }
  return out;
}

/** Today by the service's clock when one of `windows` has a date; undefined (nothing asked) otherwise. */
export async function dayIfDated(client: ReviewAdminClient, windows: Window[]): Promise<string | undefined> {
  return hasDates(windows) ? today(client) : undefined;
}

/** The stored end dates counted again for a refresh: which are soon, which have passed. */
export async function endsNow(client: ReviewAdminClient, ends: Record<string, string> = {}): Promise<MapOnDay<string>> {
  return mapOnDay(ends, (end) => ({ expiresOn: end }), Object.keys(ends).length ? await today(client) : undefined);
}

/** A roster state's date fields: absent when empty, so states without dates stay as they were. */
export function dateFields(m: Pick<MapOnDay<unknown>, "ends" | "soon" | "expired">) {
  const nonEmpty = (r: Record<string, string>) => (Object.keys(r).length ? r : undefined);
  return { expiresOn: nonEmpty(m.ends), expiringSoon: nonEmpty(m.soon), expired: nonEmpty(m.expired) };
}

/**
 * What a per-person resource's diff does about its end date (DatabaseUserPermissions, OrgMember,
 * OrgMemberPermissions, Invitation): "remove" (past it, not removed yet: preview says so),
 * "done" (removed before; nothing to do), "restore" (removed before, but the end moved later or
 * went), or undefined (judge the change as usual). Warns of an end within expiringSoonDays.
 */
export async function expiryStep(
  client: ReviewAdminClient,
  action: string,
  who: string,
  expiresOn: string | undefined,
  expiredOn: string | undefined,
  refresh = false,
): Promise<"remove" | "done" | "restore" | undefined> {
  const day = expiresOn ? await today(client) : undefined;
  const st = day ? standing({ expiresOn }, day) : "active";
  if (st === "expired") {
    if (expiredOn) return "done";
    say.warn(expiredLine(action, who, expiresOn!));
    return "remove";
  }
  if (st === "soon" && !refresh) warnExpiringSoon(action, { [who]: expiresOn! }, day!, (w) => w);
  return expiredOn ? "restore" : undefined;
}

/** Where a grant stands today by the service's clock ("active" without an end date: nothing is asked). */
export async function standingOf(client: ReviewAdminClient, expiresOn: string | undefined): Promise<Standing> {
  return expiresOn ? standing({ expiresOn }, await today(client)) : "active";
}
