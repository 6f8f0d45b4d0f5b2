/**
 * Stale access as data (issue 27): the privileged people of an organization (an organization
 * permission, or DB_ADMIN on one of its databases) with no event in its activity log as the actor
 * within the last `staleDays` days. The access comes from getAccessMatrix, the activity from one
 * range read of the log (getActivityEvents, pages of 10,000), both with the same client.
 */
import { z } from "zod";
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
 * getStalePrivilegedPeople arguments.
 * @inputType GetStalePrivilegedPeopleArgs
 */
const getStalePrivilegedPeopleArgs = z.strictObject({
  /** The organization to review (org admin of it: the access matrix needs it). */
  organizationId: idArg,
  /** Days without activity that make a person stale, and the window looked at (default 90). */
  staleDays: z.number().int().positive({ error: "must be a positive whole number of days" }).optional(),
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
}

/** getStalePrivilegedPeople's answer. */
export interface StalePrivilegedPeople {
  organizationId: number;
  /** ISO; the window is [windowBegin, asOf]. */
  asOf: string;
  windowBegin: string;
  staleDays: number;
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
      asOf = client.serviceNow() ?? Date.now();
    }
    const begin = asOf - staleDays * DAY_MS;
    const [matrix, log] = await Promise.all([
      matrixRead,
      getActivityEvents({ organizationId, begin, end: asOf + 1, limit: 10_000 }, { client }),
    ]);
    const active = new Set(log.events.map((e) => e.userId).filter((id): id is number => id != null));
    const people = new Map<number, StalePrivilegedPerson>();
    for (const m of matrix.members) {
      if (m.permissions.length === 0) continue;
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
        if (!u.permissions.includes("DB_ADMIN")) continue;
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
    for (const p of people.values()) p.databaseAdminOf.sort((a, b) => a - b);
    return {
      organizationId,
      asOf: new Date(asOf).toISOString(),
      windowBegin: new Date(begin).toISOString(),
      staleDays,
      privileged: people.size,
      stale: [...people.values()].filter((p) => !active.has(p.userId)).sort((a, b) => compareText(a.email, b.email) || a.userId - b.userId),
      unreadableDatabases: matrix.databases.filter((d) => !d.readable).map((d) => d.databaseId),
    };
  },
});

/** The Output form of getStalePrivilegedPeople, for a Pulumi program. */
export const getStalePrivilegedPeopleOutput = outputForm(getStalePrivilegedPeople);
