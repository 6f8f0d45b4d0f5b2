/**
 * EthicalWall: named people (emails, `*@domain` patterns) walled off named databases, for a
 * reason (issue 26), or, in its matter-team form (issue 37), everyone but the matter team (and
 * `alsoAllowed`); either form admits the people of its approved exceptions while they are in
 * force (by the service's clock). The wall owns no grant: it reads who holds permissions on its
 * databases (E23), reports each walled person who does as a breach, and with `onBreach: "remove"`
 * removes those grants (E24), never the last DB_ADMIN of a database no one else administers nor
 * the API key's own DB_ADMIN (anti-lockout, access/plan.ts). Org
 * admins reach every database that keeps orgAdminAccess on, which the API cannot turn off: such
 * a walled org admin is reported as `unenforceable`.
 *
 * The grants other resources of the program declare are judged by the policy pack's
 * ethical-walls rule (policy/rules/ethicalWalls.ts), which reads `walledUsers`: the user ids the
 * wall's check found behind its emails and patterns, since rosters name users by id.
 */
import { createHash } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { say } from "./support/messages";
import { z } from "zod";
import type { DatabasePermission, DatabaseUser } from "../../contract/types";
import {
  administers,
  admittedBy,
  databaseScope,
  exceptionStanding,
  exceptionText,
  wallCloses,
  wallClosesTo,
  wallFormProblems,
  type WallException,
  type WallRule,
} from "../../contract/grants";
import type { ReviewAdminClient } from "../client";
import { isStatus } from "../failures";
import { normalizeEmail, sortedSet } from "../normalize";
import { compareText, definedOnly } from "../util";
import { DatabaseId, Email, Name } from "./support/inputs";
import { argsMatch, containsUnknown, defineResource, outputsMatch, stateHolds } from "./support/lifecycle";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";
import { currentUser } from "../access/runCache";
import { serviceNow, today } from "../access/clock";
import { CalendarDay } from "./support/expiry";
import { changedBy, targetOfGrant } from "./support/whoChanged";
import { lockoutEach } from "../access/plan";
import { describedDatabase, listedDatabaseUsers, removeGrant } from "../access/databaseGrants";
import { backstopOf } from "./support/lockout";
import { listedMembers } from "../access/orgPeople";

/** What a wall does about a breach it finds in the live platform. */
export type OnBreach = "report" | "remove";

export type { WallException };

/** Inputs of an EthicalWall. */
export interface EthicalWallArgs {
  /** The walled databases (at least one). */
  databaseIds: pulumi.Input<pulumi.Input<number>[]>;
  /**
   * Exclusionary form: the people walled off, emails (`ken@northwind.example`) or domain patterns
   * (`*@opposing-counsel.example`); at least one. Give exactly one of `people` and `team`.
   */
  people?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Matter-team (inclusionary) form: the matter team, emails or domain patterns; everyone else
   * holding permissions on the databases is a breach, however they got them. Give exactly one of
   * `people` and `team`.
   */
  team?: pulumi.Input<pulumi.Input<string>[]>;
  /** Matter-team form only: others who may see the matter besides the team (the firm's conflicts staff, say). */
  alsoAllowed?: pulumi.Input<pulumi.Input<string>[]>;
  /** Approved exceptions: a person the wall closes the databases to, admitted from `startsOn` until `endsOn`, with who approved it and why. */
  exceptions?: pulumi.Input<pulumi.Input<WallExceptionArgs>[]>;
  /** Why the wall stands (a conflict, a lateral hire); shown in every message about it. */
  reason: pulumi.Input<string>;
  /** "report" (default): breaches are drift and warnings; "remove": `up` also removes the breaching grants. */
  onBreach?: pulumi.Input<OnBreach>;
}

/** One approved exception, as users write it. */
export interface WallExceptionArgs {
  /** The admitted person's email. */
  person: pulumi.Input<string>;
  /** Who approved it (an email). */
  approver: pulumi.Input<string>;
  /** Why (a client waiver, a partner's approval). */
  reason: pulumi.Input<string>;
  /** The client's consent or waiver reference, as the firm files it. */
  clientConsentRef?: pulumi.Input<string>;
  /** First day in force, YYYY-MM-DD (UTC); absent: in force from the start. */
  startsOn?: pulumi.Input<string>;
  /** The day it ends, YYYY-MM-DD (UTC): from the start of that day (by the service's clock) the person is walled again. */
  endsOn: pulumi.Input<string>;
}

const DOMAIN_PATTERN = /^\*@[a-z0-9-]+(\.[a-z0-9-]+)+$/;
const PERSON_RULE = "must be an email (ken@northwind.example) or a domain pattern *@domain (*@opposing-counsel.example)";

/** One `people` entry: an email (normalized by Email) or a lower-cased `*@domain` pattern. */
const Person = z
  .string()
  .trim()
  .toLowerCase()
  .superRefine((v, ctx) => {
    if (v.startsWith("*")) {
      if (!DOMAIN_PATTERN.test(v)) ctx.addIssue({ code: "custom", message: `'${v}' ${PERSON_RULE}` });
    } else if (!Email.safeParse(v).success) ctx.addIssue({ code: "custom", message: `'${v}' ${PERSON_RULE}` });
  });

const People = (what: string) =>
  z
    .array(Person)
    .min(1, { message: `must name at least one ${what}` })
    .transform((a) => sortedSet(a));

const NotBlank = (why: string) => Name.refine((v) => v.trim() !== "", { message: `must say ${why} (not blank)` });

const Exception = z
  .strictObject({
    person: Email,
    approver: Email,
    reason: NotBlank("why the exception was approved"),
    clientConsentRef: NotBlank("the client's consent reference, or be left out").optional(),
    startsOn: CalendarDay.optional(),
    endsOn: CalendarDay,
  })
  .superRefine((x, ctx) => {
    if (x.startsOn && x.startsOn >= x.endsOn)
      ctx.addIssue({
        code: "custom",
        path: ["endsOn"],
        message: `must be after startsOn (${x.startsOn}): the exception ends at the start of the endsOn day`,
      });
  });

const Inputs = z
  .strictObject({
    databaseIds: z
      .array(DatabaseId)
      .min(1, { message: "must name at least one database" })
      .transform((a) => sortedSet(a)),
    people: People("person or domain pattern").optional(),
    team: People("team member or domain pattern").optional(),
    alsoAllowed: z
      .array(Person)
      .transform((a) => sortedSet(a))
      .optional(),
    exceptions: z
      .array(Exception)
      .transform((xs) => [...xs].sort((a, b) => compareText(a.person, b.person) || compareText(a.startsOn ?? "", b.startsOn ?? "")))
      .optional(),
    reason: NotBlank("why the wall stands"),
    onBreach: z.enum(["report", "remove"], { message: 'must be "report" or "remove"' }).default("report"),
    // Computed by check (never written by users), for the policy pack: user id -> email of the people
    // the wall covers, database id -> the organization whose org admins reach it (orgAdminAccess on),
    // and the exceptions in force by the service's clock.
    walledUsers: z.record(z.string(), z.string()).optional(),
    orgAdminReach: z.record(z.string(), z.number()).optional(),
    exceptionsInForce: z.array(z.any()).optional(),
  })
  .superRefine((w, ctx) => {
    for (const p of wallFormProblems(w)) ctx.addIssue({ code: "custom", path: [p.field], message: p.message });
  });
type Inputs = z.infer<typeof Inputs> & { exceptionsInForce?: WallException[] };
argsMatch<
  EthicalWallArgs & { walledUsers?: Record<string, string>; orgAdminReach?: Record<string, number>; exceptionsInForce?: unknown[] },
  z.input<typeof Inputs>
>(true);

/** A walled person holding permissions on a walled database. */
export interface WallBreach {
  databaseId: number;
  userId: number;
  email: string;
  permissions: DatabasePermission[];
  /** Why `onBreach: "remove"` left the grant in place (anti-lockout); absent when it can be removed. */
  keptBecause?: string;
  /** Who made it, as the activity log says ("changed at <time> by Ada Lovelace <ada@northwind.example> (user 1001) (DATABASE_USER_UPDATED)"), when it does; read at refresh and up. */
  madeBy?: string;
  /** The person's exception that has ended, when one had admitted them. */
  exceptionEnded?: string;
}

/** A breaching grant the wall removed (onBreach "remove"), for the compliance report. */
export interface WallRemoval {
  databaseId: number;
  userId: number;
  email: string;
  permissions: DatabasePermission[];
  /** When, by the service's clock (ISO 8601). */
  removedAt: string;
  /** Who had made the breach, when the activity log said. */
  madeBy?: string;
}

/** The wall's own removals kept in its state (the most recent). */
const KEPT_REMOVALS = 100;

/** A walled org admin of the organization owning a walled database that keeps orgAdminAccess on. */
export interface WallUnenforceable {
  databaseId: number;
  organizationId: number;
  userId: number;
  email: string;
}

/** What an EthicalWall stores: its inputs, and the breaches found at the last read or up. */
export interface EthicalWallState {
  databaseIds: number[];
  /** Exclusionary form: the people walled off. */
  people?: string[];
  /** Matter-team form: the team; everyone else is walled off. */
  team?: string[];
  /** Matter-team form: others who may see the matter. */
  alsoAllowed?: string[];
  /** The approved exceptions, as declared. */
  exceptions?: WallException[];
  reason: string;
  onBreach: OnBreach;
  /** The exceptions in force at the last check, read or up (by the service's clock); present when the wall declares exceptions. */
  exceptionsInForce?: WallException[];
  /** Breaching grants this wall removed (onBreach "remove"), the most recent 100: what the compliance report says was fixed and when. */
  removals?: WallRemoval[];
  /** User id -> email of the people the wall closes the databases to (members of the databases' organizations, and database users), exceptions aside. */
  walledUsers: Record<string, string>;
  /** Walled people holding permissions on a walled database (what is left after a removal). */
  breaches: WallBreach[];
  /** Walled org admins reaching a walled database through orgAdminAccess: breaches the API cannot fix. */
  unenforceable: WallUnenforceable[];
  /** Walled databases whose users the API key may not list (403): breaches there are not seen. */
  unreadableDatabaseIds: number[];
  /** Database id -> the organization whose org admins reach it (orgAdminAccess on): the policy pack refuses ORG_ADMIN there for walled people. */
  orgAdminReach: Record<string, number>;
}
stateHolds<EthicalWallState, Inputs>(true);

const label = (s: { databaseIds: number[]; reason: string }) =>
  `EthicalWall on database${s.databaseIds.length === 1 ? "" : "s"} ${s.databaseIds.join(", ")} ("${s.reason}")`;

/** The wall's settings that judge people, as its checked inputs hold them (written out: a public declaration must not name zod). */
interface Judged {
  databaseIds: number[];
  people?: string[];
  team?: string[];
  alsoAllowed?: string[];
  exceptions?: WallException[];
}

/** What the live platform says of a wall's databases now. */
export interface WallLive {
  walledUsers: Record<string, string>;
  breaches: WallBreach[];
  unenforceable: WallUnenforceable[];
  unreadableDatabaseIds: number[];
  orgAdminReach: Record<string, number>;
  /** Present when the wall declares exceptions. */
  exceptionsInForce?: WallException[];
}

/**
 * Reads the wall's databases (`GET /v1/databases/{databaseId}`), their organizations' members (`GET /v1/organizations/{orgId}/users`) and users (`GET /v1/databases/{databaseId}/users`), once per
 * run each, and judges each person on the service's day: closed to them by the wall
 * (`wallCloses`), unless an exception in force admits them.
 */
export async function readWallLive(client: ReviewAdminClient, inputs: Judged): Promise<WallLive> {
  const rule: WallRule = inputs;
  const exceptions = inputs.exceptions ?? [];
  const day = await today(client);
  const walled = new Map<number, string>();
  const breaches: WallBreach[] = [];
  const unenforceable: WallUnenforceable[] = [];
  const unreadable: number[] = [];
  const orgAdminReach: Record<string, number> = {};
  const admitted = (email: string) => admittedBy(exceptions, email, day) !== undefined;
  for (const databaseId of inputs.databaseIds) {
    const db = await describedDatabase(client, databaseId);
    const orgId = db.owningOrganizationId;
    if (db.orgAdminAccess) orgAdminReach[String(databaseId)] = orgId;
    // A key that may not list the organization's members still sees the database's users.
    const members = await listedMembers(client, orgId).catch((err) => {
      if (isStatus(err, 403)) return new Map<number, { id: number; email: string; permissions: string[] }>();
      throw err;
    });
    const known = new Map<number, string>();
    for (const m of members.values()) {
      const email = normalizeEmail(m.email);
      known.set(m.id, email);
      if (!wallCloses(rule, email)) continue;
      walled.set(m.id, email);
      if (db.orgAdminAccess && administers("organization", m.permissions) && !admitted(email))
        unenforceable.push({ databaseId, organizationId: orgId, userId: m.id, email });
    }
    // `GET /v1/databases/{databaseId}/users` is closed to org admins where orgAdminAccess is off: the wall cannot see that database's users.
    const users = await listedDatabaseUsers(client, databaseId).catch((err) => {
      if (!isStatus(err, 403)) throw err;
      unreadable.push(databaseId);
      return new Map<number, DatabaseUser>();
    });
    for (const [userId, u] of users) {
      if (u.permissions.length === 0) continue;
      // Someone outside the owning organization: the username is their email on this platform.
      const username = u.user.username ?? "";
      const email = known.get(userId) ?? walled.get(userId) ?? (username.includes("@") ? normalizeEmail(username) : undefined);
      // A matter-team wall admits only whom it names: someone the platform gives no email is outside it.
      if (!wallClosesTo(rule, { email })) continue;
      const shown = email ?? (username || `user ${userId}`);
      if (email !== undefined) walled.set(userId, email);
      if (email !== undefined && admitted(email)) continue;
      const ended = exceptions.find((x) => x.person === email && exceptionStanding(x, day) === "ended");
      breaches.push({
        databaseId,
        userId,
        email: shown,
        permissions: sortedSet(u.permissions),
        ...(ended ? { exceptionEnded: exceptionText(ended) } : {}),
      });
    }
  }
  const walledUsers = Object.fromEntries([...walled].sort(([a], [b]) => a - b).map(([id, e]) => [String(id), e]));
  const inForce = inputs.exceptions ? { exceptionsInForce: exceptions.filter((x) => exceptionStanding(x, day) === "inForce") } : {};
  return { walledUsers, breaches, unenforceable, unreadableDatabaseIds: unreadable, orgAdminReach, ...inForce };
}

/**
 * Who made each breach, as the organization's activity log names it (whoChanged.ts): over its
 * recent events, not since the wall was applied, since a breach may be older than the wall.
 */
async function withMakers(client: ReviewAdminClient, breaches: WallBreach[]): Promise<WallBreach[]> {
  const out: WallBreach[] = [];
  for (const b of breaches) {
    const grant = { scope: databaseScope(b), subject: { userId: b.userId, email: b.email } };
    const said = await changedBy(client, targetOfGrant(grant));
    out.push(said ? { ...b, madeBy: said } : b);
  }
  return out;
}

/**
 * Marks the breaches a removal must leave, by the anti-lockout rule of every resource
 * (access/plan.ts): DB_ADMIN of the API key's own user, and the last DB_ADMIN of a database no one
 * else administers (counting the removals before it).
 */
async function markKept(client: ReviewAdminClient, breaches: WallBreach[]): Promise<WallBreach[]> {
  const user = await currentUser(client);
  const me = user && { userId: user.id };
  const kept = new Map<WallBreach, string>();
  for (const databaseId of new Set(breaches.map((b) => b.databaseId))) {
    const scope = { kind: "database" as const, id: databaseId };
    const here = breaches.filter((b) => b.databaseId === databaseId);
    const everyone = [...(await listedDatabaseUsers(client, databaseId)).values()].map((u) => ({
      scope,
      subject: { userId: u.user.id },
      permissions: u.permissions,
    }));
    const removals = here.map((b) => ({ scope, subject: { userId: b.userId }, permissions: b.permissions }));
    let causes = lockoutEach(scope, everyone, removals, me);
    // Who else administers the database is read only when its last DB_ADMIN would go.
    if (causes.some((c) => c?.kind === "lastAdmins"))
      causes = lockoutEach(scope, everyone, removals, me, await backstopOf(client, scope, false));
    here.forEach((b, i) => {
      const cause = causes[i];
      if (cause?.kind === "own") kept.set(b, `it is the grant of the API key's own user (anti-lockout)`);
      if (cause?.kind === "lastAdmins")
        kept.set(
          b,
          `it is the last DB_ADMIN of database ${databaseId}, and no org admin administers it (anti-lockout): name another DB_ADMIN first`,
        );
    });
  }
  return breaches.map((b) => (kept.has(b) ? { ...b, keptBecause: kept.get(b)! } : b));
}

const breachLine = (b: WallBreach) =>
  `${b.email} (user ${b.userId}) holds ${b.permissions.join("+")} on database ${b.databaseId}` + (b.madeBy ? ` (${b.madeBy})` : "");

/** How the wall closes a database, for messages: to the person named, or to all but the team. */
const closesTo = (inputs: Pick<Inputs, "team">) =>
  inputs.team ? "which the wall closes to all but the matter team" : "which the wall closes to them";

/** Warns of each breach and each unenforceable org admin, saying what happens next; lists the exceptions in force apart. */
function warnFindings(action: string, inputs: Pick<Inputs, "onBreach" | "reason" | "team">, live: WallLive): void {
  for (const b of live.breaches) {
    const next = b.keptBecause
      ? `left in place: ${b.keptBecause}`
      : inputs.onBreach === "remove"
        ? 'onBreach is "remove": up removes the grant'
        : 'onBreach is "report": remove the grant in the web application, or set onBreach: "remove"';
    const ended = b.exceptionEnded ? `; their exception has ended: ${b.exceptionEnded}` : "";
    say.warn(`${action}: breach: ${breachLine(b)}, ${closesTo(inputs)} (${inputs.reason})${ended}; ${next}.`);
  }
  for (const id of live.unreadableDatabaseIds) {
    say.warn(
      `${action}: cannot see who holds permissions on database ${id}: the API key may not list its users (it needs DB_ADMIN there, as orgAdminAccess is off); breaches of the wall there are not checked.`,
    );
  }
  for (const u of live.unenforceable) {
    say.warn(
      `${action}: breach the API cannot fix: ${u.email} (user ${u.userId}) is an org admin of organization ${u.organizationId}, and database ${u.databaseId} keeps orgAdminAccess on, so org admins reach it whatever the wall says. ` +
        `Turn orgAdminAccess off for database ${u.databaseId} in the web application (the API cannot change it), or take ORG_ADMIN from ${u.email}.`,
    );
  }
  for (const x of live.exceptionsInForce ?? []) say.info(`${action}: exception in force: ${exceptionText(x)}.`);
}

/** The settings as stored (undefined where not given), from inputs or a state. */
const settingsOf = (w: Partial<Inputs> | EthicalWallState) => ({
  databaseIds: w.databaseIds!,
  ...definedOnly({ people: w.people, team: w.team, alsoAllowed: w.alsoAllowed, exceptions: w.exceptions }),
  reason: w.reason!,
  onBreach: w.onBreach!,
});

function stateOf(inputs: Inputs | EthicalWallState, live: WallLive, removals: WallRemoval[] | undefined): EthicalWallState {
  return {
    ...settingsOf(inputs),
    walledUsers: live.walledUsers,
    breaches: live.breaches,
    unenforceable: live.unenforceable,
    unreadableDatabaseIds: live.unreadableDatabaseIds,
    orgAdminReach: live.orgAdminReach,
    ...definedOnly({ exceptionsInForce: live.exceptionsInForce, removals: removals?.length ? removals.slice(-KEPT_REMOVALS) : undefined }),
  };
}

/** Reads the live platform and, with onBreach "remove", removes the breaching grants the anti-lockout rule allows (`DELETE /v1/databases/{databaseId}/users/{userId}`). */
async function enforce(inputs: Inputs, client: ReviewAdminClient, action: string, before: WallRemoval[] = []): Promise<EthicalWallState> {
  const read = await readWallLive(client, inputs);
  const found = { ...read, breaches: await withMakers(client, read.breaches) };
  if (inputs.onBreach !== "remove" || found.breaches.length === 0) {
    warnFindings(action, inputs, found);
    return stateOf(inputs, found, before);
  }
  const marked = await markKept(client, found.breaches);
  const removals = [...before];
  for (const b of marked.filter((m) => !m.keptBecause)) {
    await removeGrant(client, b.databaseId, b.userId);
    removals.push({
      databaseId: b.databaseId,
      userId: b.userId,
      email: b.email,
      permissions: b.permissions,
      removedAt: new Date(serviceNow(client)).toISOString(),
      ...(b.madeBy ? { madeBy: b.madeBy } : {}),
    });
    say.info(`${action}: removed ${breachLine(b)}: the wall closes database ${b.databaseId} to them (${inputs.reason}).`);
  }
  const kept = marked.filter((m) => m.keptBecause);
  const live = { ...found, breaches: kept };
  warnFindings(action, inputs, live);
  return stateOf(inputs, live, removals);
}

// An older state has no team, alsoAllowed or exceptions: absent compares equal to absent.
const settingsChanged = (olds: EthicalWallState, news: Inputs) => JSON.stringify(settingsOf(olds)) !== JSON.stringify(settingsOf(news));

/** The EthicalWall implementation run by the plugin. */
export const ethicalWall = defineResource<Inputs, EthicalWallState>({
  kind: "EthicalWall",
  inputs: Inputs,
  outputs: outputsMatch<EthicalWallState>()([
    "databaseIds",
    "people",
    "team",
    "alsoAllowed",
    "exceptions",
    "reason",
    "onBreach",
    "exceptionsInForce",
    "removals",
    "walledUsers",
    "breaches",
    "unenforceable",
    "unreadableDatabaseIds",
    "orgAdminReach",
  ]),
  label,
  // Walls of people keep the id they always had; a matter-team wall hashes its team.
  idOf: (s) =>
    `wall/${s.databaseIds.join(",")}/${createHash("sha256")
      .update(JSON.stringify([s.people ?? { team: s.team }, s.reason]))
      .digest("hex")
      .slice(0, 12)}`,

  // Resolves the walled people to user ids for the policy pack (rosters name users by id), with the
  // exceptions in force, and warns at preview of the breaches the API cannot fix. A read the key
  // may not make finds nothing here: up fails on it, worded.
  async check(inputs, olds, { client, action }) {
    if (containsUnknown(inputs)) return { inputs };
    try {
      const live = await readWallLive(client, inputs);
      // A wall already in state is diffed next, and its diff says the same: only a new one warns here.
      if (olds.databaseIds === undefined) warnFindings(action, inputs, { ...live, breaches: [] });
      const computed = { walledUsers: live.walledUsers, orgAdminReach: live.orgAdminReach };
      return { inputs: { ...inputs, ...computed, ...definedOnly({ exceptionsInForce: live.exceptionsInForce }) } };
    } catch {
      return { inputs };
    }
  },

  // Settings update in place. A breach is drift at refresh; at preview and up it is read live, and
  // with onBreach "remove" a removable one is a change (up removes it); "report" only warns.
  async diff(olds, news, { client, action, refresh }) {
    if (containsUnknown(news)) return { changes: true, replaces: [] };
    if (refresh) return { changes: settingsChanged(olds, news) || (olds.breaches ?? []).length > 0, replaces: [] };
    const live = await readWallLive(client, news);
    const marked = news.onBreach === "remove" ? await markKept(client, live.breaches) : live.breaches;
    const changes = settingsChanged(olds, news) || (news.onBreach === "remove" && marked.some((b) => !b.keptBecause));
    // Without a change up does not run, so the breaches are said here.
    if (!changes) warnFindings(action, news, { ...live, breaches: marked });
    return { changes, replaces: [] };
  },

  create: (inputs, { client, action }) => enforce(inputs, client, action),
  update: (olds, news, { client, action }) => enforce(news, client, action, olds.removals),

  async read(state, { client, action }) {
    const live = await readWallLive(client, state);
    const marked = state.onBreach === "remove" ? await markKept(client, live.breaches) : live.breaches;
    const found = { ...live, breaches: await withMakers(client, marked) };
    warnFindings(action, state, found);
    const fresh = stateOf(state, found, state.removals);
    return { state: fresh, inputs: definedOnly(settingsOf(fresh)) as Inputs };
  },

  // A wall owns no grant: taking it down removes nothing.
  async delete(_state, { action }) {
    say.info(`${action}: the wall is no longer enforced; no permission was changed.`);
  },
});

/**
 * An ethical wall over `databaseIds`, for a `reason`, in one of two forms: `people` (emails and
 * `*@domain` patterns) walled off, or a matter `team` (with `alsoAllowed`) outside which everyone
 * is walled off. `exceptions` admit a person, with who approved it and why, until their `endsOn`
 * (by the service's clock); then the person is walled again. The policy pack's ethical-walls rule
 * refuses, at preview, a program granting a walled person access to a walled database. In the
 * live platform, refresh reports each walled person holding permissions on a walled database
 * (`breaches`, with who made them when the activity log says) as drift; with `onBreach: "remove"`,
 * up removes those grants (kept in `removals`), except the last DB_ADMIN of a database no one
 * else administers and the API key's own DB_ADMIN (anti-lockout, said in the message). A walled org admin of a database's
 * organization, where the database keeps orgAdminAccess on, is listed in `unenforceable` with a
 * warning: the API cannot change that setting. Deleting the wall changes no permission.
 */
export interface EthicalWall extends Outputs<EthicalWallState> {}
export class EthicalWall extends ReviewAdminResource {
  constructor(name: string, args: EthicalWallArgs, opts?: pulumi.CustomResourceOptions) {
    super(ethicalWall.definition, name, args, opts);
  }
}
