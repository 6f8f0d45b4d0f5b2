/**
 * EthicalWall: named people (emails, `*@domain` patterns) walled off named databases, for a
 * reason (issue 26). The wall owns no grant: it reads who holds permissions on its databases
 * (E23), reports each walled person who does as a breach, and with `onBreach: "remove"` removes
 * those grants (E24), never the last DB_ADMIN of a database nor the API key's own DB_ADMIN (anti-lockout, access/plan.ts). Org
 * admins reach every database that keeps orgAdminAccess on, which the API cannot turn off: such
 * a walled org admin is reported as `unenforceable`.
 *
 * The grants other resources of the program declare are judged by the policy pack's
 * ethical-walls rule (policy/rules/ethicalWalls.ts), which reads `walledUsers`: the user ids the
 * wall's check found behind its emails and patterns, since rosters name users by id.
 */
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { say } from "./support/messages";
import { z } from "zod";
import type { DatabasePermission, DatabaseUser } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { isStatus } from "../failures";
import { normalizeEmail, sortedSet, wallCovers } from "../normalize";
import { definedOnly } from "../util";
import { DatabaseId, Email, Name } from "./support/inputs";
import { argsMatch, containsUnknown, defineResource, outputsMatch, stateHolds } from "./support/lifecycle";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";
import { currentUser } from "../access/runCache";
import { lockoutEach } from "../access/plan";
import { listedDatabaseUsers, removeGrant } from "../access/databaseGrants";
import { listedMembers } from "../access/orgPeople";

/** What a wall does about a breach it finds in the live platform. */
export type OnBreach = "report" | "remove";

/** Inputs of an EthicalWall. */
export interface EthicalWallArgs {
  /** The walled databases (at least one). */
  databaseIds: pulumi.Input<pulumi.Input<number>[]>;
  /** The people walled off: emails (`ken@northwind.example`) or domain patterns (`*@opposing-counsel.example`); at least one. */
  people: pulumi.Input<pulumi.Input<string>[]>;
  /** Why the wall stands (a conflict, a lateral hire); shown in every message about it. */
  reason: pulumi.Input<string>;
  /** "report" (default): breaches are drift and warnings; "remove": `up` also removes the breaching grants. */
  onBreach?: pulumi.Input<OnBreach>;
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

const Inputs = z.strictObject({
  databaseIds: z
    .array(DatabaseId)
    .min(1, { message: "must name at least one database" })
    .transform((a) => sortedSet(a)),
  people: z
    .array(Person)
    .min(1, { message: "must name at least one person or domain pattern" })
    .transform((a) => sortedSet(a)),
  reason: Name.refine((v) => v.trim() !== "", { message: "must say why the wall stands (not blank)" }),
  onBreach: z.enum(["report", "remove"], { message: 'must be "report" or "remove"' }).default("report"),
  // Computed by check (never written by users), for the policy pack: user id -> email of the people
  // the wall covers, and database id -> the organization whose org admins reach it (orgAdminAccess on).
  walledUsers: z.record(z.string(), z.string()).optional(),
  orgAdminReach: z.record(z.string(), z.number()).optional(),
});
type Inputs = z.infer<typeof Inputs>;
argsMatch<EthicalWallArgs & { walledUsers?: Record<string, string>; orgAdminReach?: Record<string, number> }, z.input<typeof Inputs>>(true);

/** A walled person holding permissions on a walled database. */
export interface WallBreach {
  databaseId: number;
  userId: number;
  email: string;
  permissions: DatabasePermission[];
  /** Why `onBreach: "remove"` left the grant in place (anti-lockout); absent when it can be removed. */
  keptBecause?: string;
}

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
  people: string[];
  reason: string;
  onBreach: OnBreach;
  /** User id -> email of the people the wall covers (members of the databases' organizations, and database users). */
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

const covers = (people: readonly string[], email: string) => people.some((p) => wallCovers(p, email));

/** What the live platform says of a wall's databases now. */
interface Live {
  walledUsers: Record<string, string>;
  breaches: WallBreach[];
  unenforceable: WallUnenforceable[];
  unreadableDatabaseIds: number[];
  orgAdminReach: Record<string, number>;
}

/** Reads the wall's databases (E27), their organizations' members (E18) and users (E23), once per run each. */
async function readLive(client: ReviewAdminClient, inputs: Pick<Inputs, "databaseIds" | "people">): Promise<Live> {
  const walled = new Map<number, string>();
  const breaches: WallBreach[] = [];
  const unenforceable: WallUnenforceable[] = [];
  const unreadable: number[] = [];
  const orgAdminReach: Record<string, number> = {};
  for (const databaseId of inputs.databaseIds) {
    const db = await client.call("GetDatabase", { databaseId });
    const orgId = db.owningOrganizationId;
    if (db.orgAdminAccess) orgAdminReach[String(databaseId)] = orgId;
    // A key that may not list the organization's members still sees the database's users.
    const members = await listedMembers(client, orgId).catch((err) => {
      if (isStatus(err, 403)) return new Map<number, { id: number; email: string; permissions: string[] }>();
      throw err;
    });
    for (const m of members.values()) {
      if (!covers(inputs.people, m.email)) continue;
      walled.set(m.id, normalizeEmail(m.email));
      if (db.orgAdminAccess && m.permissions.includes("ORG_ADMIN"))
        unenforceable.push({ databaseId, organizationId: orgId, userId: m.id, email: normalizeEmail(m.email) });
    }
    // E23 is closed to org admins where orgAdminAccess is off: the wall cannot see that database's users.
    const users = await listedDatabaseUsers(client, databaseId).catch((err) => {
      if (!isStatus(err, 403)) throw err;
      unreadable.push(databaseId);
      return new Map<number, DatabaseUser>();
    });
    for (const [userId, u] of users) {
      // Someone outside the owning organization: the username is their email on this platform.
      const email = walled.get(userId) ?? (u.user.username?.includes("@") ? normalizeEmail(u.user.username) : undefined);
      if (!email || !covers(inputs.people, email) || u.permissions.length === 0) continue;
      walled.set(userId, email);
      breaches.push({ databaseId, userId, email, permissions: sortedSet(u.permissions) });
    }
  }
  const walledUsers = Object.fromEntries([...walled].sort(([a], [b]) => a - b).map(([id, e]) => [String(id), e]));
  return { walledUsers, breaches, unenforceable, unreadableDatabaseIds: unreadable, orgAdminReach };
}

/**
 * Marks the breaches a removal must leave, by the anti-lockout rule of every resource
 * (access/plan.ts): DB_ADMIN of the API key's own user, and the last DB_ADMIN of a database
 * (counting the removals before it).
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
    const causes = lockoutEach(
      scope,
      everyone,
      here.map((b) => ({ scope, subject: { userId: b.userId }, permissions: b.permissions })),
      me,
    );
    here.forEach((b, i) => {
      const cause = causes[i];
      if (cause?.kind === "own") kept.set(b, `it is the grant of the API key's own user (anti-lockout)`);
      if (cause?.kind === "lastAdmins")
        kept.set(b, `it is the last DB_ADMIN of database ${databaseId} (anti-lockout): name another DB_ADMIN first`);
    });
  }
  return breaches.map((b) => (kept.has(b) ? { ...b, keptBecause: kept.get(b)! } : b));
}

const breachLine = (b: WallBreach) => `${b.email} (user ${b.userId}) holds ${b.permissions.join("+")} on database ${b.databaseId}`;

/** Warns of each breach and each unenforceable org admin, saying what happens next. */
function warnFindings(action: string, inputs: Pick<Inputs, "onBreach" | "reason">, live: Live): void {
  for (const b of live.breaches) {
    const next = b.keptBecause
      ? `left in place: ${b.keptBecause}`
      : inputs.onBreach === "remove"
        ? 'onBreach is "remove": up removes the grant'
        : 'onBreach is "report": remove the grant in the web application, or set onBreach: "remove"';
    say.warn(`${action}: breach: ${breachLine(b)}, which the wall closes to them (${inputs.reason}); ${next}.`);
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
}

function stateOf(inputs: Inputs, live: Live): EthicalWallState {
  return {
    databaseIds: inputs.databaseIds,
    people: inputs.people,
    reason: inputs.reason,
    onBreach: inputs.onBreach,
    walledUsers: live.walledUsers,
    breaches: live.breaches,
    unenforceable: live.unenforceable,
    unreadableDatabaseIds: live.unreadableDatabaseIds,
    orgAdminReach: live.orgAdminReach,
  };
}

/** Reads the live platform and, with onBreach "remove", removes the breaching grants the anti-lockout rule allows (E24). */
async function enforce(inputs: Inputs, client: ReviewAdminClient, action: string): Promise<EthicalWallState> {
  const found = await readLive(client, inputs);
  if (inputs.onBreach !== "remove" || found.breaches.length === 0) {
    warnFindings(action, inputs, found);
    return stateOf(inputs, found);
  }
  const marked = await markKept(client, found.breaches);
  for (const b of marked.filter((m) => !m.keptBecause)) {
    await removeGrant(client, b.databaseId, b.userId);
    say.info(`${action}: removed ${breachLine(b)}: the wall closes database ${b.databaseId} to them (${inputs.reason}).`);
  }
  const kept = marked.filter((m) => m.keptBecause);
  const live = { ...found, breaches: kept };
  warnFindings(action, inputs, live);
  return stateOf(inputs, live);
}

const settingsChanged = (olds: EthicalWallState, news: Inputs) =>
  JSON.stringify([olds.databaseIds, olds.people, olds.reason, olds.onBreach]) !==
  JSON.stringify([news.databaseIds, news.people, news.reason, news.onBreach]);

/** The EthicalWall implementation run by the plugin. */
export const ethicalWall = defineResource<Inputs, EthicalWallState>({
  kind: "EthicalWall",
  inputs: Inputs,
  outputs: outputsMatch<EthicalWallState>()([
    "databaseIds",
    "people",
    "reason",
    "onBreach",
    "walledUsers",
    "breaches",
    "unenforceable",
    "unreadableDatabaseIds",
    "orgAdminReach",
  ]),
  label,
  idOf: (s) =>
    `wall/${s.databaseIds.join(",")}/${createHash("sha256")
      .update(JSON.stringify([s.people, s.reason]))
      .digest("hex")
      .slice(0, 12)}`,

  // Resolves the walled people to user ids for the policy pack (rosters name users by id), and
  // warns at preview of the breaches the API cannot fix. A read the key may not make finds nothing here: up fails on it, worded.
  async check(inputs, olds, { client, action }) {
    if (containsUnknown(inputs)) return { inputs };
    try {
      const live = await readLive(client, inputs);
      // A wall already in state is diffed next, and its diff says the same: only a new one warns here.
      if (olds.databaseIds === undefined) warnFindings(action, inputs, { ...live, breaches: [] });
      return { inputs: { ...inputs, walledUsers: live.walledUsers, orgAdminReach: live.orgAdminReach } };
    } catch {
      return { inputs };
    }
  },

  // Settings update in place. A breach is drift at refresh; at preview and up it is read live, and
  // with onBreach "remove" a removable one is a change (up removes it); "report" only warns.
  async diff(olds, news, { client, action, refresh }) {
    if (containsUnknown(news)) return { changes: true, replaces: [] };
    if (refresh) return { changes: settingsChanged(olds, news) || (olds.breaches ?? []).length > 0, replaces: [] };
    const live = await readLive(client, news);
    const marked = news.onBreach === "remove" ? await markKept(client, live.breaches) : live.breaches;
    const changes = settingsChanged(olds, news) || (news.onBreach === "remove" && marked.some((b) => !b.keptBecause));
    // Without a change up does not run, so the breaches are said here.
    if (!changes) warnFindings(action, news, { ...live, breaches: marked });
    return { changes, replaces: [] };
  },

  create: (inputs, { client, action }) => enforce(inputs, client, action),
  update: (_olds, news, { client, action }) => enforce(news, client, action),

  async read(state, { client, action }) {
    const live = await readLive(client, state);
    const marked = state.onBreach === "remove" ? await markKept(client, live.breaches) : live.breaches;
    const found = { ...live, breaches: marked };
    warnFindings(action, state, found);
    const fresh = stateOf(state, found);
    const { walledUsers: _computed, breaches: _b, unenforceable: _u, unreadableDatabaseIds: _r, orgAdminReach: _o, ...inputs } = fresh;
    return { state: fresh, inputs: definedOnly(inputs) as Inputs };
  },

  // A wall owns no grant: taking it down removes nothing.
  async delete(_state, { action }) {
    say.info(`${action}: the wall is no longer enforced; no permission was changed.`);
  },
});

/**
 * An ethical wall: `people` (emails and `*@domain` patterns) walled off `databaseIds`, for a
 * `reason`. The policy pack's ethical-walls rule refuses, at preview, a program granting a walled
 * person access to a walled database. In the live platform, refresh reports each walled person
 * holding permissions on a walled database (`breaches`) as drift; with `onBreach: "remove"`, up
 * removes those grants, except the last DB_ADMIN of a database and the API key's own DB_ADMIN
 * (anti-lockout, said in the message). A walled org admin of a database's organization, where the
 * database keeps orgAdminAccess on, is listed in `unenforceable` with a warning: the API cannot
 * change that setting. Deleting the wall changes no permission.
 */
export interface EthicalWall extends Outputs<EthicalWallState> {}
export class EthicalWall extends ReviewAdminResource {
  constructor(name: string, args: EthicalWallArgs, opts?: pulumi.CustomResourceOptions) {
    super(ethicalWall.definition, name, args, opts);
  }
}
