/**
 * The scale benchmark's world and measures (see scale.ts): its sizes, result types and goals'
 * shape, an emulator seeded with would-be members and empty databases, and one phase measured
 * from the emulator's request log.
 */
import { performance } from "node:perf_hooks";
import { SEEDED, addSyntheticDatabases, addSyntheticMembers, startEmulator, type LogEntry, type RunningEmulator } from "../emulator";
import { routes } from "../contract/routes";
import type { EngineStack } from "../harness/engineStack";
import { sampleProcessMemory, type ProcessPeaks } from "./processMemory";

/** The size of the world. */
export interface ScaleWorld {
  /** People added to the organization. */
  members: number;
  /** Databases owned by the organization. */
  databases: number;
  /** People given permissions on each database (the first databases × usersPerDatabase people). */
  usersPerDatabase: number;
  /** A firm (the export benchmark's --people): members and databases are then each of this many organizations' (emulator/model/firm.ts). */
  organizations?: number;
  /** In a firm: members of each organization who are members of the next one too. */
  sharedMembers?: number;
}

/** The world of the issue: 2,000 members, 50 databases of 40 users. */
export const FULL_WORLD: ScaleWorld = { members: 2000, databases: 50, usersPerDatabase: 40 };
/** A small world for a fast check. */
export const QUICK_WORLD: ScaleWorld = { members: 200, databases: 5, usersPerDatabase: 10 };

export type Phase = "create" | "noChangeUp" | "refresh" | "destroy";
export const PHASES: readonly Phase[] = ["create", "noChangeUp", "refresh", "destroy"];
export const PHASE_LABEL: Record<Phase, string> = {
  create: "create (first up)",
  noChangeUp: "no-change up",
  refresh: "refresh",
  destroy: "destroy",
};

/** What one phase cost. */
export interface PhaseResult {
  /** API requests the emulator received (429 answers included). */
  requests: number;
  /** Requests by operation id, e.g. {"PostOrganizationUsers": 20}. */
  byOperation: Record<string, number>;
  /** Requests on organization members and invitations (E2, E13-E15, E18-E22). */
  memberRequests: number;
  /** Requests on database users (E23-E26). */
  databaseUserRequests: number;
  /** 429 answers. */
  throttled: number;
  wallMs: number;
  /**
   * The least wall time the client's limiter allows for these requests: floor(rate) requests per
   * 1.05 s, i.e. 42 ms each at 25/s. A wall time well above it is CPU (or waiting), not the limit.
   */
  rateFloorMs: number;
  /** Steps the run took, by kind (programs only): {"create": 4000}. */
  steps?: Record<string, number>;
  /** What was checked in the emulator afterwards, and whether it held. */
  verified: { ok: boolean; detail: string };
  /** People in each E19 request, in the order the emulator received them (phases with E19 only). */
  e19BatchSizes?: number[];
  /** Under the engine: peak resident memory of the CLI and of the dynamic-provider plugin. */
  memory?: ProcessPeaks;
  /** Under the engine: size of the stack's checkpoint file after the phase. */
  checkpointBytes?: number;
  /**
   * Where the wall time went, from the emulator's log: before the first request arrived, from then
   * to the last answer, and after it (absent when the phase sent nothing or the log overflowed).
   */
  timeline?: { beforeFirstMs: number; requestsMs: number; afterLastMs: number };
}

/** The programs under the real engine, and the naive baseline. */
export type VariantName = "perMember" | "perMemberTuned" | "rosters" | "naive";
/**
 * perMember: the engine's defaults (a checkpoint before and after every step, --parallel 4 x CPUs);
 * perMemberTuned: the same program as docs/gitops.md recommends for a self-managed backend
 * (PULUMI_SKIP_CHECKPOINTS=true, --parallel TUNED_PARALLEL).
 */
export const PROGRAM_VARIANTS = ["perMember", "perMemberTuned", "rosters"] as const;
/** The --parallel of the tuned per-member variant: enough workers for the E19 batches and the rate limit's pipeline. */
export const TUNED_PARALLEL = 64;
/** How the reports name each variant. */
export const VARIANT_LABEL: Record<VariantName, string> = {
  perMember: "per-member",
  perMemberTuned: "per-member, tuned",
  rosters: "rosters",
  naive: "naive",
};
export type ProgramVariant = (typeof PROGRAM_VARIANTS)[number];

export interface VariantResult {
  name: VariantName;
  description: string;
  /** Dynamic resources declared (0 for the naive baseline). */
  resources: number;
  /** How it was driven. */
  driver: string;
  phases: Record<Phase, PhaseResult>;
}

/** A goal of the issue, computed from the figures. */
export interface Goal {
  id: string;
  description: string;
  /** The bound, or null for a yes/no goal. */
  limit: number | null;
  /** The figure measured, per variant that the goal applies to. */
  measured: Record<string, number>;
  met: boolean;
}

export interface ScaleResult {
  world: ScaleWorld & { databaseUsers: number; organizationId: number };
  rateLimit: { emulatorPerSecond: number; clientPerSecond: number };
  /** The constant allowed on top of ceil(N/200) and ceil(N/100). */
  goalConstant: number;
  /** The naive baseline and the program variants that ran (all, unless the run chose some: --variants). */
  variants: Partial<Record<ProgramVariant, VariantResult>> & { naive: VariantResult };
  /** requests and wall time of each variant's phase divided by the naive one's (null when naive is 0). */
  ratios: Partial<Record<ProgramVariant, Record<Phase, { requests: number | null; wall: number | null }>>>;
  goals: Goal[];
  allGoalsMet: boolean;
  notes: string[];
  totalWallMs: number;
  /** os.loadavg() (1, 5, 15 minutes) when the benchmark began and ended: other work on the machine skews wall times. */
  loadAverage: { start: number[]; end: number[] };
  /** Whether the naive baseline ran beside the programs (in a worker thread) or after them. */
  naiveMode: "concurrent" | "sequential";
}

/** The constant a goal allows on top of ceil(N/page): the few list and identity reads of a run. */
export const GOAL_CONSTANT = 5;
export const ORG = SEEDED.org;
export const ORG_PERMISSIONS: never[] = []; // every member gets the same (empty) organization permission set
export const DB_PERMISSIONS = ["DB_UPLOAD"] as const;
export const EMULATOR_RATE = 25;
export const CLIENT_RATE = 25;

const MEMBER_OPS = new Set([
  "GetCurrentUser",
  "DeleteOrganizationInvitation",
  "GetOrganizationInvitations",
  "PostOrganizationInvitationResend",
  "GetOrganizationUsers",
  "PostOrganizationUsers",
  "DeleteOrganizationUser",
  "GetOrganizationUser",
  "PatchOrganizationUser",
]);
const DATABASE_USER_OPS = new Set(["GetDatabaseUsers", "DeleteDatabaseUser", "GetDatabaseUser", "PutDatabaseUser"]);

/** "E19 PostOrganizationUsers" for an operation id. */
export function opLabel(op: string): string {
  const route = (routes as Record<string, { id: string } | undefined>)[op];
  return route ? `${route.id} ${op}` : op;
}

// ---------------------------------------------------------------------------------------------
// The world

interface Person {
  email: string;
  userId: number;
}
interface Grant {
  databaseId: number;
  userId: number;
}
/** One variant's emulator, key, people and grants. */
export interface World {
  emu: RunningEmulator;
  key: string;
  members: Person[];
  databases: number[];
  grants: Grant[];
  /** People per E19 call since the last phase began (the request log does not keep bodies). */
  e19Batches: number[];
}

/** A fresh emulator at the service's rate limit, with N would-be members and D empty databases. */
export async function makeWorld(size: ScaleWorld): Promise<World> {
  const emu = await startEmulator({ rateLimit: EMULATOR_RATE });
  const store = emu.store;
  const people = Math.max(size.members, size.databases * size.usersPerDatabase);
  // Platform users who are not members of ORG: members of a pool organization of their own.
  const pool = store.organizations.create({ name: "Benchmark applicants" });
  const users = addSyntheticMembers(store, pool.id, people).map((m) => store.users.get(m.userId));
  const databases = addSyntheticDatabases(store, ORG, size.databases, 0).map((d) => d.id);
  const members = users.slice(0, size.members).map((u) => ({ email: u.email, userId: u.id }));
  const grants: Grant[] = [];
  databases.forEach((databaseId, d) => {
    for (let i = 0; i < size.usersPerDatabase; i++) grants.push({ databaseId, userId: users[d * size.usersPerDatabase + i].id });
  });
  // Instrumentation only: count the people of each E19 the handler passes to the store.
  const e19Batches: number[] = [];
  const addUsers = store.members.addUsers.bind(store.members);
  store.members.addUsers = (orgId, people, ...rest) => {
    e19Batches.push(people.length);
    return addUsers(orgId, people, ...rest);
  };
  emu.traffic.log.reset();
  return { emu, key: emu.keys.orgAdmin, members, databases, grants, e19Batches };
}

/** Whether every member and grant of the world is live (or, with `gone`, none is). */
export function verifyWorld(w: World, expect: "present" | "gone"): { ok: boolean; detail: string } {
  const store = w.emu.store;
  const isMember = w.members.filter((p) => {
    const m = store.members.find(ORG, p.userId);
    return m !== undefined && m.permissions.length === ORG_PERMISSIONS.length;
  }).length;
  const granted = w.grants.filter((g) => {
    const du = store.databases.findUser(g.databaseId, g.userId);
    return du !== undefined && du.permissions.length === DB_PERMISSIONS.length && du.permissions[0] === DB_PERMISSIONS[0];
  }).length;
  const detail = `${isMember}/${w.members.length} members, ${granted}/${w.grants.length} database users live`;
  const ok = expect === "present" ? isMember === w.members.length && granted === w.grants.length : isMember === 0 && granted === 0;
  return { ok, detail: `${detail} (expected ${expect === "present" ? "all" : "none"})` };
}

// ---------------------------------------------------------------------------------------------
// Measuring a phase

/** Runs one phase and reads what it cost from the emulator's request log. */
export async function measure(
  w: World,
  run: () => Promise<{ steps?: Record<string, number> } | void>,
  verify: () => { ok: boolean; detail: string },
  engine?: EngineStack,
): Promise<PhaseResult> {
  const log = w.emu.traffic.log;
  log.reset();
  w.e19Batches.length = 0;
  const memory = engine ? sampleProcessMemory() : undefined;
  const t0 = performance.now();
  const started = Date.now();
  const extra = (await run()) ?? {};
  const wallMs = performance.now() - t0;
  const timeline = timelineOf(log.list(), log.counters.total, started, wallMs);
  const engineFigures = engine ? { memory: memory!.stop(), checkpointBytes: engine.checkpointBytes() } : {};
  const c = log.counters;
  const byOperation = Object.fromEntries(
    Object.entries(c.byOperation)
      .map(([op, v]) => [op, v.total])
      .sort(([a], [b]) => String(a).localeCompare(String(b))),
  );
  const sum = (ops: Set<string>) =>
    Object.entries(byOperation)
      .filter(([op]) => ops.has(op))
      .reduce((n, [, v]) => n + (v as number), 0);
  return {
    requests: c.total,
    byOperation,
    memberRequests: sum(MEMBER_OPS),
    databaseUserRequests: sum(DATABASE_USER_OPS),
    throttled: c.byStatus["429"] ?? 0,
    wallMs: Math.round(wallMs),
    rateFloorMs: Math.round((c.total * 1050) / Math.floor(CLIENT_RATE)),
    ...(extra.steps ? { steps: extra.steps } : {}),
    verified: verify(),
    ...(w.e19Batches.length > 0 ? { e19BatchSizes: [...w.e19Batches] } : {}),
    ...engineFigures,
    ...(timeline ? { timeline } : {}),
  };
}

/** A phase's wall time split at its first request's arrival and its last answer (see PhaseResult.timeline). */
export function timelineOf(entries: LogEntry[], total: number, startedAt: number, wallMs: number): PhaseResult["timeline"] {
  if (!entries.length || entries.length < total) return undefined;
  const first = Math.min(...entries.map((e) => Date.parse(e.time) - e.durationMs)) - startedAt;
  const last = Math.max(...entries.map((e) => Date.parse(e.time))) - startedAt;
  return { beforeFirstMs: Math.round(first), requestsMs: Math.round(last - first), afterLastMs: Math.round(wallMs - last) };
}
