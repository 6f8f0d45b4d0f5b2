/**
 * The control API, under /_emulator/ (never under /v1, and without a key): what tests, demos and
 * benchmarks use to set the stage and to look behind it.
 *
 * - World: reset/reseed, state dump, synthetic scale, organizations, users, databases, projects.
 * - Keys: mint a key for a user or an organization, revoke one.
 * - Time: read and advance the emulator's clock.
 * - Traffic: rate limits, faults (429/500/503, dropped connections, latency), the request log
 *   and its counters.
 * - People acting in the web UI "behind the program's back": accept or expire an invitation,
 *   invite someone, add, change and remove members, set database permissions. These call the
 *   same store methods the API handlers call, so the rules are the same.
 *
 * Every answer is `{data: ...}`; errors use the API's error shape. `GET /_emulator` lists the routes.
 */
import { z } from "zod";
import { DatabasePermission, OrganizationPermission, params as rules, parseOrThrow, UserIdentifier } from "../contract";
import type { RouteTable } from "../contract/routing";
import { BadRequest, MethodNotAllowed, NotFound } from "./errors";
import type { HandlerResult } from "./handlers/types";
import { addSyntheticDatabases, addSyntheticMembers, SEEDED, type ScaleOptions } from "./model/seed";
import type { Store } from "./model/store";
import type { FaultConfig, RequestRecord, Traffic } from "./traffic";
import { databaseUserView, databaseView, invitationView, memberView, organizationView, projectView } from "./views";

/** What the control API (and the server) need of a running emulator. */
export interface ControlRuntime {
  store: Store;
  traffic: Traffic;
  /** The routes the API is served on: the built-in ones, or those of an OpenAPI document. */
  routes: RouteTable;
  /** The URL the emulator listens on. */
  baseUrl(): string;
  /** Replaces the world with a fresh seeded one (or an empty one); returns the named keys. */
  reseed(seed?: number | "empty", scale?: ScaleOptions): Record<string, string>;
  /** Saves the world to the state file, if any (debounced). */
  persist(): void;
  /** When set, every control request but the health check must carry it (header X-Emulator-Token). */
  controlToken?: string;
  /** Called once per finished request, control requests included (the command line's log lines). */
  onRequest?(entry: RequestRecord): void;
  /** performance.now() when the emulator started, for the health check's uptime. */
  startedAt: number;
}

interface ControlContext {
  runtime: ControlRuntime;
  store: Store;
  params: Record<string, number | string>;
  body: unknown;
  url: URL;
}

type ControlHandler = (ctx: ControlContext) => HandlerResult | Promise<HandlerResult>;

// The API's id rule: a number, or plain decimal digits (never "0x66" read as 102).
const id = rules.id;
const permissions = z.array(OrganizationPermission);

const Scale = z.object({
  organizationId: id.optional(),
  members: z.number().int().min(0).optional(),
  databases: z.number().int().min(0).optional(),
  usersPerDatabase: z.number().int().min(0).optional(),
});

const Schemas = {
  reset: z.object({ seed: z.union([z.number().int(), z.literal("empty")]).optional(), scale: Scale.optional() }),
  scale: Scale,
  mintKey: z.union([
    z.object({ userId: id, label: z.string().optional() }),
    z.object({ organizationId: id, label: z.string().optional() }),
  ]),
  clock: z.object({ advanceMs: z.number().optional(), advanceDays: z.number().optional() }),
  rateLimit: z.object({
    perSecond: z.number().min(0).nullable().optional(),
    authFailuresPerSecond: z.number().min(0).nullable().optional(),
  }),
  faults: z.object({
    latencyMs: z.number().min(0).optional(),
    rates: z
      .object({
        "429": z.number().min(0).max(1),
        "500": z.number().min(0).max(1),
        "503": z.number().min(0).max(1),
        drop: z.number().min(0).max(1),
      })
      .partial()
      .optional(),
    script: z
      .array(
        z.object({
          status: z.union([z.literal(429), z.literal(500), z.literal(503)]).optional(),
          drop: z.enum(["before", "after"]).optional(),
          retryAfter: z.number().int().min(0).optional(),
        }),
      )
      .optional(),
    operations: z.array(z.string()).optional(),
    seed: z.number().int().optional(),
  }),
  invitationRef: z.object({ organizationId: id, email: z.string().min(1) }),
  organization: z.object({ name: z.string().min(1), parentOrganizationId: id.optional() }),
  user: z.object({
    email: z.string().min(1),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    title: z.string().optional(),
  }),
  addMember: z
    .object({
      userId: id.optional(),
      email: z.string().optional(),
      firstName: z.string().optional(),
      lastName: z.string().optional(),
      permissions: permissions.optional(),
    })
    .refine((v) => v.userId !== undefined || v.email !== undefined, { message: "must give userId or email", path: ["userId"] }),
  updateMember: z.object({ permissions: permissions.optional(), userIdentifiers: z.array(UserIdentifier).optional() }),
  invite: z.object({
    email: z.string().min(1),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    permissions: permissions.optional(),
  }),
  database: z.object({ organizationId: id, name: z.string().min(1), orgAdminAccess: z.boolean().optional() }),
  updateDatabase: z.object({ orgAdminAccess: z.boolean() }),
  project: z.object({
    name: z.string().min(1),
    displayName: z.string().optional(),
    partial: z.boolean().optional(),
    eca: z.boolean().optional(),
    suspended: z.boolean().optional(),
    userIds: z.array(id).optional(),
  }),
  databaseUser: z.object({ permissions: z.array(DatabasePermission) }),
};

function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  return parseOrThrow(schema, body ?? {}, "control", "body");
}

/** A rate of 0 or null means "no limit". */
function limitOf(value: number | null | undefined): number {
  return value === null || value === undefined || value === 0 ? Infinity : value;
}

function rateLimitView(traffic: Traffic) {
  const show = (n: number) => (Number.isFinite(n) && n > 0 ? n : null);
  return { perSecond: show(traffic.rateLimiter.perSecond), authFailuresPerSecond: show(traffic.authFailureLimiter.perSecond) };
}

function clockView(store: Store) {
  return { now: store.clock.iso(), nowMs: store.clock.now(), offsetMs: store.clock.offsetMs };
}

function keyList(store: Store) {
  return [...store.keys.values()].map(({ key, keyId, kind, userId, organizationId, label }) => ({
    key,
    keyId,
    kind,
    userId,
    organizationId,
    label,
  }));
}

/** Control routes: method, path template, what it does, handler. */
const controlRoutes: { method: string; path: string; summary: string; handler: ControlHandler }[] = [
  {
    method: "GET",
    path: "/_emulator",
    summary: "This list, the URL and the named keys",
    handler: ({ runtime, store }) => ({
      data: {
        url: runtime.baseUrl(),
        keys: store.namedKeys,
        routes: controlRoutes.map(({ method, path, summary }) => ({ method, path, summary })),
      },
    }),
  },
  {
    method: "GET",
    path: "/_emulator/health",
    summary: 'Liveness, without the control token: {status: "ok", uptimeSeconds, controlTokenRequired}',
    handler: ({ runtime }) => ({
      data: {
        status: "ok",
        uptimeSeconds: Math.round((performance.now() - runtime.startedAt) / 100) / 10,
        controlTokenRequired: runtime.controlToken !== undefined,
      },
    }),
  },

  // ----- world -----
  {
    method: "POST",
    path: "/_emulator/reset",
    summary: 'Reseed the world: body {seed?: number | "empty", scale?}; returns the new named keys',
    handler: ({ runtime, body }) => {
      const b = parse(Schemas.reset, body);
      return { data: { keys: runtime.reseed(b.seed, b.scale) } };
    },
  },
  {
    method: "GET",
    path: "/_emulator/state",
    summary: "The whole world as JSON (what --state saves)",
    handler: ({ store }) => ({ data: store.toJSON() }),
  },
  {
    method: "POST",
    path: "/_emulator/scale",
    summary: "Add synthetic data: {organizationId? (default 102), members?, databases?, usersPerDatabase?}",
    handler: ({ store, body }) => {
      const b = parse(Schemas.scale, body);
      const orgId = b.organizationId ?? SEEDED.org;
      const members = b.members ? addSyntheticMembers(store, orgId, b.members).length : 0;
      const databases = b.databases ? addSyntheticDatabases(store, orgId, b.databases, b.usersPerDatabase ?? 0).map((d) => d.id) : [];
      return { data: { organizationId: orgId, membersAdded: members, databaseIds: databases } };
    },
  },
  {
    method: "POST",
    path: "/_emulator/organizations",
    summary: "Create an organization: {name, parentOrganizationId?}",
    handler: ({ store, body }) => {
      const b = parse(Schemas.organization, body);
      return { status: 201, data: organizationView(store.createOrganization(b)) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/users",
    summary: "Create a platform user (member of nothing): {email, firstName?, lastName?, title?}",
    handler: ({ store, body }) => {
      const b = parse(Schemas.user, body);
      if (store.findUserByEmail(b.email)) throw new BadRequest("body.email", "is already a platform user");
      const u = store.createUser(b);
      return { status: 201, data: { id: u.id, email: u.email, firstName: u.firstName, lastName: u.lastName } };
    },
  },
  {
    method: "POST",
    path: "/_emulator/databases",
    summary: "Create a database: {organizationId, name, orgAdminAccess?}",
    handler: ({ store, body }) => {
      const b = parse(Schemas.database, body);
      return {
        status: 201,
        data: databaseView(
          store.createDatabase({ owningOrganizationId: b.organizationId, name: b.name, orgAdminAccess: b.orgAdminAccess }),
        ),
      };
    },
  },
  {
    method: "PATCH",
    path: "/_emulator/databases/{databaseId}",
    summary: "Turn org admin access on or off: {orgAdminAccess}",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.updateDatabase, body);
      return { data: databaseView(store.setOrgAdminAccess(Number(params.databaseId), b.orgAdminAccess)) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/databases/{databaseId}/projects",
    summary: "Create a project: {name, displayName?, partial?, eca?, suspended?, userIds?}",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.project, body);
      return { status: 201, data: projectView(store, store.createProject({ databaseId: Number(params.databaseId), ...b })) };
    },
  },

  // ----- keys -----
  {
    method: "GET",
    path: "/_emulator/keys",
    summary: "Named keys of the seeded world and every key",
    handler: ({ store }) => ({ data: { named: store.namedKeys, keys: keyList(store) } }),
  },
  {
    method: "POST",
    path: "/_emulator/keys",
    summary: "Mint a key: {userId} acts as the user; {organizationId} is an organization key (org admin, parent org admin of its subs)",
    handler: ({ store, body }) => {
      const b = parse(Schemas.mintKey, body);
      const record = "userId" in b ? store.mintUserKey(b.userId, b.label) : store.mintOrganizationKey(b.organizationId, b.label);
      return {
        status: 201,
        data: { key: record.key, keyId: record.keyId, kind: record.kind, userId: record.userId, organizationId: record.organizationId },
      };
    },
  },
  {
    method: "DELETE",
    path: "/_emulator/keys/{key}",
    summary: "Revoke a key (full text or middle segment)",
    handler: ({ store, params }) => {
      store.revokeKey(String(params.key));
      return { status: 204 };
    },
  },

  // ----- time -----
  { method: "GET", path: "/_emulator/clock", summary: "The emulator's now", handler: ({ store }) => ({ data: clockView(store) }) },
  {
    method: "POST",
    path: "/_emulator/clock",
    summary: "Advance the clock: {advanceMs?, advanceDays?}",
    handler: ({ store, body }) => {
      const b = parse(Schemas.clock, body);
      store.clock.advance((b.advanceMs ?? 0) + (b.advanceDays ?? 0) * 86_400_000);
      store.changed();
      return { data: clockView(store) };
    },
  },

  // ----- traffic -----
  {
    method: "GET",
    path: "/_emulator/rate-limit",
    summary: "Current limits (null: off)",
    handler: ({ runtime }) => ({ data: rateLimitView(runtime.traffic) }),
  },
  {
    method: "PUT",
    path: "/_emulator/rate-limit",
    summary: "Set limits: {perSecond?, authFailuresPerSecond?} (0 or null: off; a field left out stays)",
    handler: ({ runtime, body }) => {
      const b = parse(Schemas.rateLimit, body);
      if (b.perSecond !== undefined) runtime.traffic.rateLimiter.set(limitOf(b.perSecond));
      if (b.authFailuresPerSecond !== undefined) runtime.traffic.authFailureLimiter.set(limitOf(b.authFailuresPerSecond));
      return { data: rateLimitView(runtime.traffic) };
    },
  },
  {
    method: "GET",
    path: "/_emulator/requests",
    summary: "Request counters (per operation and status) and log; ?operation=Id filters the log",
    handler: ({ runtime, url }) => ({
      data: { counters: runtime.traffic.log.counters, log: runtime.traffic.log.list(url.searchParams.get("operation") ?? undefined) },
    }),
  },
  {
    method: "DELETE",
    path: "/_emulator/requests",
    summary: "Reset the request log and counters",
    handler: ({ runtime }) => {
      runtime.traffic.log.reset();
      return { status: 204 };
    },
  },
  {
    method: "GET",
    path: "/_emulator/faults",
    summary: "Current fault configuration",
    handler: ({ runtime }) => ({ data: runtime.traffic.faults.config }),
  },
  {
    method: "POST",
    path: "/_emulator/faults",
    summary:
      "Set faults: {latencyMs?, rates?: {429?,500?,503?,drop?}, script?: [{status?|drop?: before|after, retryAfter?}], operations?, seed?}",
    handler: ({ runtime, body }) => {
      runtime.traffic.faults.set(parse(Schemas.faults, body) as FaultConfig);
      return { data: runtime.traffic.faults.config };
    },
  },
  {
    method: "DELETE",
    path: "/_emulator/faults",
    summary: "Remove every fault",
    handler: ({ runtime }) => {
      runtime.traffic.faults.clear();
      return { status: 204 };
    },
  },

  // ----- people acting in the web UI -----
  {
    method: "POST",
    path: "/_emulator/invitations/accept",
    summary: "The invitee accepts: {organizationId, email}; creates the user if new and the membership with the invitation's permissions",
    handler: ({ store, body }) => {
      const b = parse(Schemas.invitationRef, body);
      const inv = store.invitation(b.organizationId, b.email);
      if (store.isExpired(inv)) throw new BadRequest("body.email", "the invitation has expired and cannot be accepted (re-send it first)");
      const { membership } = store.acceptInvitation(b.organizationId, b.email);
      return { data: memberView(store, membership) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/invitations/expire",
    summary: "Make an invitation expired now: {organizationId, email}",
    handler: ({ store, body }) => {
      const b = parse(Schemas.invitationRef, body);
      return { data: invitationView(store, store.expireInvitation(b.organizationId, b.email)) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/organizations/{orgId}/invitations",
    summary: "Someone invites a person in the UI: {email, firstName?, lastName?, permissions?}",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.invite, body);
      const orgId = Number(params.orgId);
      const existing = store.findInvitation(orgId, b.email);
      return { status: existing ? 200 : 201, data: invitationView(store, existing ?? store.createInvitation(orgId, b)) };
    },
  },
  {
    method: "POST",
    path: "/_emulator/organizations/{orgId}/members",
    summary: "Someone adds a member in the UI: {userId | email (+ firstName, lastName: creates the user), permissions?}",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.addMember, body);
      let userId = b.userId;
      if (userId === undefined) {
        const email = b.email!;
        userId = (store.findUserByEmail(email) ?? store.createUser({ email, firstName: b.firstName, lastName: b.lastName })).id;
      }
      return { status: 201, data: memberView(store, store.addMember(Number(params.orgId), userId, b.permissions ?? [])) };
    },
  },
  {
    method: "PATCH",
    path: "/_emulator/organizations/{orgId}/members/{userId}",
    summary: "Someone edits a member in the UI: {permissions?, userIdentifiers?} (left out: unchanged)",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.updateMember, body);
      return { data: memberView(store, store.updateMember(Number(params.orgId), Number(params.userId), b)) };
    },
  },
  {
    method: "DELETE",
    path: "/_emulator/organizations/{orgId}/members/{userId}",
    summary: "Someone removes a member in the UI",
    handler: ({ store, params }) => {
      store.removeMember(Number(params.orgId), Number(params.userId));
      return { status: 204 };
    },
  },
  {
    method: "PUT",
    path: "/_emulator/databases/{databaseId}/users/{userId}",
    summary: "Someone sets database permissions in the UI: {permissions} (overwrites)",
    handler: ({ store, params, body }) => {
      const b = parse(Schemas.databaseUser, body);
      return { data: databaseUserView(store, store.setDatabaseUser(Number(params.databaseId), Number(params.userId), b.permissions)) };
    },
  },
  {
    method: "DELETE",
    path: "/_emulator/databases/{databaseId}/users/{userId}",
    summary: "Someone removes a user's database permissions in the UI",
    handler: ({ store, params }) => {
      store.removeDatabaseUser(Number(params.databaseId), Number(params.userId));
      return { status: 204 };
    },
  },
];

const compiled = controlRoutes.map((r) => ({
  ...r,
  names: [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
  re: new RegExp("^" + r.path.replace(/\{\w+\}/g, "([^/]+)") + "/?$"),
}));

/** Answers one control request. Id path parameters come back as numbers (400 when not an id). */
export async function handleControl(runtime: ControlRuntime, method: string, url: URL, rawBody: Buffer): Promise<HandlerResult> {
  let pathMatched = false;
  for (const r of compiled) {
    const m = r.re.exec(url.pathname);
    if (!m) continue;
    pathMatched = true;
    if (r.method !== method) continue;
    const params: Record<string, number | string> = {};
    r.names.forEach((n, i) => {
      let v: string;
      try {
        v = decodeURIComponent(m[i + 1]);
      } catch {
        throw new BadRequest(n, "has a malformed %-escape");
      }
      // Every control path parameter but a key is an id, read by the API's rule.
      params[n] = n === "key" ? v : parseOrThrow(id, v, "control", n);
    });
    let body: unknown;
    if (rawBody.length > 0) {
      try {
        body = JSON.parse(rawBody.toString("utf8"));
      } catch {
        throw new BadRequest("body", "must be valid JSON");
      }
    }
    return r.handler({ runtime, store: runtime.store, params, body, url });
  }
  if (pathMatched) throw new MethodNotAllowed(`Method ${method} is not allowed on ${url.pathname}`);
  throw new NotFound("control route", url.pathname);
}
