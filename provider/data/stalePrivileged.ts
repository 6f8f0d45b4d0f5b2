/**
 * Stale access as data (issue 27): the privileged people of an organization (an organization
 * permission, or DB_ADMIN on one of its databases) with no event in its activity log as the actor
 * within the last `staleDays` days. The access comes from getAccessMatrix, the activity from one
 * range read of the log (getActivityEvents, pages of 10,000), both with the same client.
 */
import { z } from "zod";
import { PRIVILEGES, privilegesAmong, type Privilege } from "../../contract/grants";
import { serviceNow } from "../access/clock";
import { compareText } from "../util";
import { getAccessMatrix } from "./accessReview";
import { idArg } from "./args";
import { outputForm, type DataSourceFn } from "./dataSource";
import { defineDataSource } from "./defineDataSource";
import { getActivityEvents } from "./events";
import type { GetStalePrivilegedPeopleArgs } from "./argTypes.generated";

export type { GetStalePrivilegedPeopleArgs };

const DAY_MS = 86_400_000;

/**
 * The staleness rule, one place for the data source and `pulumi-reviewadmin review`: a person's
 * limit is the strictest (fewest days) of the limits of the privileges they hold, a privilege
 * without its own limit taking `staleDays`; a person without a privilege has `staleDays`.
 */
export function staleLimitDays(
  privileges: readonly string[],
  staleDays: number,
  byPrivilege: Partial<Record<string, number>> = {},
): number {
  if (privileges.length === 0) return staleDays;
  return Math.min(...privileges.map((p) => byPrivilege[p] ?? staleDays));
}

/**
 * getStalePrivilegedPeople arguments.
 * @inputType GetStalePrivilegedPeopleArgs
 */
const getStalePrivilegedPeopleArgs = z.strictObject({
  /** The organization to review (org admin of it: the access matrix needs it). */
  organizationId: idArg,
  /** Days without activity that make a person stale (default 90). */
  staleDays: z.number().int().positive({ error: "must be a positive whole number of days" }).optional(),
  /** Days per privilege (ORG_ADMIN, DB_ADMIN, ...); a person's limit is the strictest of the privileges they hold. */
  staleDaysByPrivilege: z
    .partialRecord(z.enum(PRIVILEGES), z.number().int().positive({ error: "must be a positive whole number of days" }))
    .optional(),
  /** The time the answer describes, unix milliseconds (default: the service's clock, from its Date header). */
  asOf: z.number().int().positive({ error: "must be unix milliseconds" }).optional(),
});

/** A privileged person with no activity in the window. */
export interface StalePrivilegedPerson {
  userId: number;
  /** The email for a member; the username for a database admin who is not a member. */
  email: string;
  name: string;
  /** Organization permissions, sorted (empty for a database admin who is not a member). */
  organizationPermissions: string[];
  /** Databases (ids, ascending) the person holds DB_ADMIN on. */
  databaseAdminOf: number[];
  /** The person's limit in days (staleLimitDays). */
  limitDays: number;
  /** ISO time of their latest event as the actor in the window read; null: none there. */
  lastActivity: string | null;
}

/** getStalePrivilegedPeople's answer. */
export interface StalePrivilegedPeople {
  organizationId: number;
  /** ISO; the window read is [windowBegin, asOf], the longest limit. */
  asOf: string;
  windowBegin: string;
  staleDays: number;
  /** The limits per privilege given (empty: none). */
  staleDaysByPrivilege: Partial<Record<Privilege, number>>;
  /** Privileged people looked at (stale or not). */
  privileged: number;
  /** The stale ones, by email. */
  stale: StalePrivilegedPerson[];
  /** Databases whose users the key could not read (their admins are not judged). */
  unreadableDatabases: number[];
}

/**
 * The privileged people of an organization (an organization permission, or DB_ADMIN on one of its
 * databases) with no activity-log event as the actor in the last `staleDays` days before `asOf`.
 */
export const getStalePrivilegedPeople: DataSourceFn<GetStalePrivilegedPeopleArgs, StalePrivilegedPeople> = defineDataSource({
  name: "getStalePrivilegedPeople",
  args: getStalePrivilegedPeopleArgs,
  read: async (args, { client }) => {
    const { organizationId } = args;
    const staleDays = args.staleDays ?? 90;
    // Without asOf, "now" is the service's clock (the Date header of the matrix's answers), the
    // clock its events are stamped by; so the matrix is read first.
    const matrixRead = getAccessMatrix({ organizationId }, { client });
    let asOf = args.asOf;
    if (asOf === undefined) {
      await matrixRead;
      asOf = serviceNow(client);
    }
    const byPrivilege = args.staleDaysByPrivilege ?? {};
    const begin = asOf - Math.max(staleDays, ...Object.values(byPrivilege).map(Number)) * DAY_MS;
    const [matrix, log] = await Promise.all([
      matrixRead,
      getActivityEvents({ organizationId, begin, end: asOf + 1, limit: 10_000 }, { client }),
    ]);
    // Latest event per actor in the window (events come oldest first).
    const last = new Map<number, number>();
    for (const e of log.events)
      if (e.userId != null && e.timestamp <= asOf) last.set(e.userId, Math.max(e.timestamp, last.get(e.userId) ?? 0));
    const people = new Map<number, Omit<StalePrivilegedPerson, "limitDays" | "lastActivity">>();
    for (const m of matrix.members) {
      if (privilegesAmong("organization", m.permissions).length === 0) continue;
      const name = [m.firstName, m.lastName].filter(Boolean).join(" ");
      people.set(m.userId, {
        userId: m.userId,
        email: m.email.toLowerCase(),
        name,
        organizationPermissions: [...m.permissions],
        databaseAdminOf: [],
      });
    }
    for (const db of matrix.databases) {
      for (const u of db.users) {
        if (privilegesAmong("database", u.permissions).length === 0) continue;
        let p = people.get(u.userId);
        if (!p) {
          const name = [u.firstName, u.lastName].filter(Boolean).join(" ");
          people.set(
            u.userId,
            (p = {
              userId: u.userId,
              email: (u.email ?? u.username).toLowerCase(),
              name,
              organizationPermissions: [],
              databaseAdminOf: [],
            }),
          );
        }
        p.databaseAdminOf.push(db.databaseId);
      }
    }
    const judged: StalePrivilegedPerson[] = [...people.values()].map((p) => {
      p.databaseAdminOf.sort((a, b) => a - b);
      const held = [...p.organizationPermissions, ...(p.databaseAdminOf.length ? ["DB_ADMIN"] : [])];
      const at = last.get(p.userId);
      return {
        ...p,
        limitDays: staleLimitDays(held, staleDays, byPrivilege),
        lastActivity: at === undefined ? null : new Date(at).toISOString(),
      };
    });
    const isStale = (p: StalePrivilegedPerson) => p.lastActivity === null || Date.parse(p.lastActivity) < asOf - p.limitDays * DAY_MS;
    return {
      organizationId,
      asOf: new Date(asOf).toISOString(),
      windowBegin: new Date(begin).toISOString(),
      staleDays,
      staleDaysByPrivilege: Object.fromEntries(PRIVILEGES.filter((p) => byPrivilege[p] !== undefined).map((p) => [p, byPrivilege[p]])),
      privileged: people.size,
      stale: judged.filter(isStale).sort((a, b) => compareText(a.email, b.email) || a.userId - b.userId),
      unreadableDatabases: matrix.databases.filter((d) => !d.readable).map((d) => d.databaseId),
    };
  },
});

/** The Output form of getStalePrivilegedPeople, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getStalePrivilegedPeopleOutput = outputForm(getStalePrivilegedPeople);
