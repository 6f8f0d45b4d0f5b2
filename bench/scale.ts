/**
 * The scale benchmark (issue 8): what managing a large organization costs in API requests, wall
 * time and 429s, for per-member resources and for rosters, against a naive provider that sends
 * one request per resource and shares nothing.
 *
 * Each variant gets its own emulator world with the service's rate limit (25 requests per second
 * per account) and the provider's client at its default 25/s:
 * - N platform users who are not yet members of the organization (members of a separate "pool"
 *   organization, made with the emulator's synthetic-member method), so create really ADDS them;
 * - D synthetic databases owned by the organization, with no users yet; the first D×U people get
 *   one permission set on one database each (U per database).
 *
 * Variants:
 * - per-member: N OrgMember + D×U DatabaseUserPermissions;
 * - rosters: one OrganizationMembers (additive: the organization has seeded people the program
 *   does not manage) + D DatabaseUsers (authoritative: the databases are the program's own);
 * - naive: the same work done with the project's HTTP client, one request per resource (create:
 *   E19 with one person + E26; refresh: E21 + E25; destroy: E20 + E24; a no-change up: nothing),
 *   64 in flight, through the client's 25/s limiter, so its wall time is real.
 *
 * Phases: create (first up), a no-change up, refresh, destroy. Requests and 429s are the
 * emulator's request-log counters, reset before each phase.
 *
 * The programs run under the real Pulumi engine (EngineStack: `pulumi up` of an inline program
 * through the Automation API, the engine's default --parallel of 4 x CPUs), which the goals are
 * judged on; and, beside them for comparison, through the program harness (ProgramStack: the
 * program under setMocks, every registration at once, no worker bound), which is where the
 * figures of earlier releases came from.
 */
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { SEEDED, startEmulator, type RunningEmulator } from "../emulator";
import { EngineStack } from "../harness/engineStack";
import { ProgramStack, RunError, type RunResult } from "../harness/program/stack";
import { pulumiVersion } from "../harness/pulumiCli";
import { sampleProcessMemory, type ProcessPeaks } from "./processMemory";

const cliVersion = () => pulumiVersion() ?? "(not found)";
import { routes } from "../contract/routes";
import { ReviewAdminClient } from "../provider/client";
import { DatabaseUserPermissions, DatabaseUsers, OrganizationMembers, OrgMember } from "../provider";

/** The size of the world. */
export interface ScaleWorld {
  /** People added to the organization. */
  members: number;
  /** Databases owned by the organization. */
  databases: number;
  /** People given permissions on each database (the first databases × usersPerDatabase people). */
  usersPerDatabase: number;
}

/** The world of the issue: 2,000 members, 50 databases of 40 users. */
export const FULL_WORLD: ScaleWorld = { members: 2000, databases: 50, usersPerDatabase: 40 };
/** A small world for a fast check. */
export const QUICK_WORLD: ScaleWorld = { members: 200, databases: 5, usersPerDatabase: 10 };

/** Options of {@link benchScale}. */
export interface ScaleBenchOptions {
  world?: ScaleWorld;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
  /** Requests in flight for the naive baseline (default 64, like `pulumi up --parallel 64`). */
  naiveParallel?: number;
  /**
   * "concurrent" (default): the naive baseline runs in a worker thread, in its own emulator (its
   * own rate-limit account), while the programs run; it is bound by the 25/s limit, not by CPU,
   * and this keeps the full benchmark near 8 minutes instead of 15. "sequential": after them.
   */
  naive?: "concurrent" | "sequential";
}

export type Phase = "create" | "noChangeUp" | "refresh" | "destroy";
export const PHASES: readonly Phase[] = ["create", "noChangeUp", "refresh", "destroy"];
const PHASE_LABEL: Record<Phase, string> = {
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
}

/** The programs under the real engine, the same programs through the harness, and the naive baseline. */
export type VariantName = "perMember" | "rosters" | "perMemberHarness" | "rostersHarness" | "naive";
const PROGRAM_VARIANTS = ["perMember", "rosters", "perMemberHarness", "rostersHarness"] as const;
type ProgramVariant = (typeof PROGRAM_VARIANTS)[number];

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
  variants: Record<VariantName, VariantResult>;
  /** requests and wall time of each variant's phase divided by the naive one's (null when naive is 0). */
  ratios: Record<ProgramVariant, Record<Phase, { requests: number | null; wall: number | null }>>;
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
const ORG = SEEDED.org;
const ORG_PERMISSIONS: never[] = []; // every member gets the same (empty) organization permission set
const DB_PERMISSIONS = ["DB_UPLOAD"] as const;
const EMULATOR_RATE = 25;
const CLIENT_RATE = 25;

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
interface World {
  emu: RunningEmulator;
  key: string;
  members: Person[];
  databases: number[];
  grants: Grant[];
  /** People per E19 call since the last phase began (the request log does not keep bodies). */
  e19Batches: number[];
}

/** A fresh emulator at the service's rate limit, with N would-be members and D empty databases. */
async function makeWorld(size: ScaleWorld): Promise<World> {
  const emu = await startEmulator({ rateLimit: EMULATOR_RATE });
  const store = emu.store;
  const people = Math.max(size.members, size.databases * size.usersPerDatabase);
  // Platform users who are not members of ORG: members of a pool organization of their own.
  const pool = store.createOrganization({ name: "Benchmark applicants" });
  const users = store.addSyntheticMembers(pool.id, people).map((m) => store.user(m.userId));
  const databases = store.addSyntheticDatabases(ORG, size.databases, 0).map((d) => d.id);
  const members = users.slice(0, size.members).map((u) => ({ email: u.email, userId: u.id }));
  const grants: Grant[] = [];
  databases.forEach((databaseId, d) => {
    for (let i = 0; i < size.usersPerDatabase; i++) grants.push({ databaseId, userId: users[d * size.usersPerDatabase + i].id });
  });
  // Instrumentation only: count the people of each E19 the handler passes to the store.
  const e19Batches: number[] = [];
  const addUsers = store.addUsers.bind(store);
  store.addUsers = (orgId, people, ...rest) => {
    e19Batches.push(people.length);
    return addUsers(orgId, people, ...rest);
  };
  emu.traffic.log.reset();
  return { emu, key: emu.keys.orgAdmin, members, databases, grants, e19Batches };
}

/** Whether every member and grant of the world is live (or, with `gone`, none is). */
function verifyWorld(w: World, expect: "present" | "gone"): { ok: boolean; detail: string } {
  const store = w.emu.store;
  const isMember = w.members.filter((p) => {
    const m = store.findMembership(ORG, p.userId);
    return m !== undefined && m.permissions.length === ORG_PERMISSIONS.length;
  }).length;
  const granted = w.grants.filter((g) => {
    const du = store.findDatabaseUser(g.databaseId, g.userId);
    return du !== undefined && du.permissions.length === DB_PERMISSIONS.length && du.permissions[0] === DB_PERMISSIONS[0];
  }).length;
  const detail = `${isMember}/${w.members.length} members, ${granted}/${w.grants.length} database users live`;
  const ok = expect === "present" ? isMember === w.members.length && granted === w.grants.length : isMember === 0 && granted === 0;
  return { ok, detail: `${detail} (expected ${expect === "present" ? "all" : "none"})` };
}

// ---------------------------------------------------------------------------------------------
// Measuring a phase

async function measure(
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
  const extra = (await run()) ?? {};
  const wallMs = performance.now() - t0;
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
  };
}

function stepCounts(r: RunResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of r.steps) out[s.op] = (out[s.op] ?? 0) + 1;
  return out;
}

/** Runs a ProgramStack operation; a failed run is reported with its first messages, not a wall of text. */
async function stackRun(what: string, fn: () => Promise<RunResult>): Promise<{ steps: Record<string, number> }> {
  try {
    return { steps: stepCounts(await fn()) };
  } catch (e) {
    if (e instanceof RunError) {
      const first = e.result.errors.slice(0, 5).join("\n  ");
      throw new Error(`${what} failed (${e.result.errors.length} error(s)):\n  ${first}`, { cause: e });
    }
    throw e;
  }
}

const repoRoot = path.resolve(__dirname, "../..");

/** A stack of the variant: the real engine, or the program harness. */
function newStack(w: World, name: string, harness: boolean): ProgramStack | EngineStack {
  if (!harness) {
    return new EngineStack({
      cwd: repoRoot,
      project: "reviewadmin-bench",
      stack: name,
      config: { "reviewadmin:apiKey": w.key, "reviewadmin:baseUrl": w.emu.url },
      secretConfigKeys: ["reviewadmin:apiKey"],
      keepState: false,
    });
  }
  return new ProgramStack({
    cwd: repoRoot,
    project: "reviewadmin-bench",
    stack: name,
    config: { "reviewadmin:apiKey": w.key, "reviewadmin:baseUrl": w.emu.url },
    secretConfigKeys: ["reviewadmin:apiKey"],
    // Creates wait their turn behind the 25/s limiter for minutes: no per-call gRPC deadline to speak of.
    callTimeoutMs: 60 * 60_000,
  });
}

// ---------------------------------------------------------------------------------------------
// The three variants

async function programVariant(name: ProgramVariant, size: ScaleWorld, log: (line: string) => void): Promise<VariantResult> {
  const w = await makeWorld(size);
  const harness = name.endsWith("Harness");
  const perMember = name.startsWith("perMember");
  const stack = newStack(w, name, harness);
  const engine = stack instanceof EngineStack ? stack : undefined;
  const program = perMember
    ? () => {
        for (const p of w.members) {
          new OrgMember(`member-${p.userId}`, { organizationId: ORG, email: p.email, permissions: [...ORG_PERMISSIONS] });
        }
        for (const g of w.grants) {
          new DatabaseUserPermissions(`dbuser-${g.databaseId}-${g.userId}`, {
            databaseId: g.databaseId,
            userId: g.userId,
            permissions: [...DB_PERMISSIONS],
          });
        }
      }
    : () => {
        new OrganizationMembers("members", {
          organizationId: ORG,
          mode: "additive",
          members: Object.fromEntries(w.members.map((p) => [p.email, { permissions: [...ORG_PERMISSIONS] }])),
        });
        for (const databaseId of w.databases) {
          const users = Object.fromEntries(
            w.grants.filter((g) => g.databaseId === databaseId).map((g) => [String(g.userId), [...DB_PERMISSIONS]]),
          );
          new DatabaseUsers(`database-${databaseId}`, { databaseId, mode: "authoritative", users });
        }
      };
  const resources = perMember ? w.members.length + w.grants.length : 1 + w.databases.length;
  const phases = {} as Record<Phase, PhaseResult>;
  try {
    const step = async (
      phase: Phase,
      run: () => Promise<{ steps?: Record<string, number> } | void>,
      verify: () => { ok: boolean; detail: string },
    ) => {
      log(`  ${name}: ${PHASE_LABEL[phase]}...`);
      phases[phase] = await measure(w, run, verify, engine);
      const r = phases[phase];
      log(
        `  ${name}: ${PHASE_LABEL[phase]}: ${r.requests} requests, ${(r.wallMs / 1000).toFixed(1)} s, ${r.throttled} 429s; ${r.verified.detail}`,
      );
    };
    await step(
      "create",
      () => stackRun(`${name} create`, () => stack.up(program)),
      () => verifyWorld(w, "present"),
    );
    await step(
      "noChangeUp",
      () => stackRun(`${name} no-change up`, () => stack.up(program, { expectNoChanges: true })),
      () => verifyWorld(w, "present"),
    );
    await step(
      "refresh",
      () => stackRun(`${name} refresh`, () => stack.refresh()),
      () => verifyWorld(w, "present"),
    );
    // Rosters stop managing on delete and remove nobody (by design): everyone stays.
    await step(
      "destroy",
      () => stackRun(`${name} destroy`, () => stack.destroy()),
      () => verifyWorld(w, perMember ? "gone" : "present"),
    );
  } finally {
    await stack.close();
    await w.emu.close();
  }
  return {
    name,
    description: perMember
      ? `${w.members.length} OrgMember + ${w.grants.length} DatabaseUserPermissions`
      : `1 OrganizationMembers (additive, ${w.members.length} people) + ${w.databases.length} DatabaseUsers (authoritative, ${size.usersPerDatabase} users each)`,
    resources,
    driver: harness
      ? "the program harness (ProgramStack: the program under setMocks, each dynamic resource stepped by the real plugin over gRPC, a fresh plugin per run; every registration at once, no worker bound)"
      : `the Pulumi CLI ${cliVersion()} (Automation API, inline program; default --parallel, ${4 * os.cpus().length} workers on ${os.cpus().length} CPUs)`,
    phases,
  };
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

async function naiveVariant(size: ScaleWorld, parallel: number, log: (line: string) => void): Promise<VariantResult> {
  const w = await makeWorld(size);
  const client = new ReviewAdminClient({ baseUrl: w.emu.url, apiKey: w.key, requestsPerSecond: CLIENT_RATE });
  type Job = () => Promise<unknown>;
  const all = (jobs: Job[]) => mapLimit(jobs, parallel, (j) => j());
  const phases = {} as Record<Phase, PhaseResult>;
  try {
    const step = async (phase: Phase, run: () => Promise<void>, verify: () => { ok: boolean; detail: string }) => {
      log(`  naive: ${PHASE_LABEL[phase]}...`);
      phases[phase] = await measure(w, run, verify);
      const r = phases[phase];
      log(
        `  naive: ${PHASE_LABEL[phase]}: ${r.requests} requests, ${(r.wallMs / 1000).toFixed(1)} s, ${r.throttled} 429s; ${r.verified.detail}`,
      );
    };
    await step(
      "create",
      () =>
        all([
          ...w.members.map(
            (p) => () =>
              client.call(
                "PostOrganizationUsers",
                { orgId: ORG },
                { users: [{ email: p.email, firstName: "", lastName: "" }], permissions: [...ORG_PERMISSIONS] },
              ),
          ),
          ...w.grants.map(
            (g) => () =>
              client.call("PutDatabaseUser", { databaseId: g.databaseId, userId: g.userId }, { databasePermissions: [...DB_PERMISSIONS] }),
          ),
        ]),
      () => verifyWorld(w, "present"),
    );
    // Nothing changed and a preview without refresh reads nothing: no request at all.
    await step(
      "noChangeUp",
      async () => {},
      () => verifyWorld(w, "present"),
    );
    await step(
      "refresh",
      () =>
        all([
          ...w.members.map((p) => () => client.call("GetOrganizationUser", { orgId: ORG, userId: p.userId })),
          ...w.grants.map((g) => () => client.call("GetDatabaseUser", { databaseId: g.databaseId, userId: g.userId })),
        ]),
      () => verifyWorld(w, "present"),
    );
    await step(
      "destroy",
      () =>
        all([
          ...w.grants.map((g) => () => client.call("DeleteDatabaseUser", { databaseId: g.databaseId, userId: g.userId })),
          ...w.members.map((p) => () => client.call("DeleteOrganizationUser", { orgId: ORG, userId: p.userId })),
        ]),
      () => verifyWorld(w, "gone"),
    );
  } finally {
    await client.close();
    await w.emu.close();
  }
  return {
    name: "naive",
    description: "one request per resource, nothing shared: E19 (one person) + E26 to create, E21 + E25 to refresh, E20 + E24 to destroy",
    resources: 0,
    driver: `the project's ReviewAdminClient at ${CLIENT_RATE}/s, ${parallel} requests in flight`,
    phases,
  };
}

// ---------------------------------------------------------------------------------------------
// Goals and the whole benchmark

function ratio(a: number, b: number): number | null {
  return b === 0 ? null : Math.round((a / b) * 1000) / 1000;
}

function goalsOf(size: ScaleWorld, v: ScaleResult["variants"]): Goal[] {
  // Judged under the real engine; the harness variants are shown beside them, not judged.
  const programs = { perMember: v.perMember, rosters: v.rosters };
  const per = (f: (r: VariantResult) => number, only?: (keyof typeof programs)[]) =>
    Object.fromEntries(
      Object.entries(programs)
        .filter(([k]) => !only || only.includes(k as keyof typeof programs))
        .map(([k, r]) => [k, f(r)]),
    );
  const goal = (id: string, description: string, limit: number | null, measured: Record<string, number>): Goal => ({
    id,
    description,
    limit,
    measured,
    met: Object.values(measured).every((m) => (limit === null ? m === 0 : m <= limit)),
  });
  const N = size.members;
  const dbUsers = size.databases * size.usersPerDatabase;
  return [
    goal(
      "refresh-members",
      `refresh of ${N} members: member requests (E2, E13-E15, E18-E22) at most ceil(N/200) + ${GOAL_CONSTANT}`,
      Math.ceil(N / 200) + GOAL_CONSTANT,
      per((r) => r.phases.refresh.memberRequests),
    ),
    goal(
      "create-members",
      `creating ${N} members with one permission set as a roster: member requests at most ceil(N/100) + ${GOAL_CONSTANT} (per-member creates cannot batch beyond the engine's workers: see the notes)`,
      Math.ceil(N / 100) + GOAL_CONSTANT,
      per((r) => r.phases.create.memberRequests, ["rosters"]),
    ),
    goal(
      "no-429",
      "no 429 at all, in any phase of any variant (harness and naive baseline included)",
      null,
      Object.fromEntries(Object.entries(v).map(([k, r]) => [k, PHASES.reduce((n, p) => n + r.phases[p].throttled, 0)])),
    ),
    goal(
      "no-change-up",
      "a no-change up sends no request",
      null,
      per((r) => r.phases.noChangeUp.requests),
    ),
    goal(
      "refresh-database-users",
      `refresh of ${dbUsers} database users: one list per database, at most databases x ceil(U/200) + ${GOAL_CONSTANT}`,
      size.databases * Math.ceil(size.usersPerDatabase / 200) + GOAL_CONSTANT,
      per((r) => r.phases.refresh.databaseUserRequests),
    ),
    goal(
      "phases-verified",
      "the emulator holds what each phase should leave (count of phases that did not)",
      null,
      Object.fromEntries(Object.entries(v).map(([k, r]) => [k, PHASES.filter((p) => !r.phases[p].verified.ok).length])),
    ),
  ];
}

/** What the main thread sends the naive worker, and what it answers. */
interface NaiveWorkerData {
  benchScaleNaive: { size: ScaleWorld; parallel: number };
}
type NaiveWorkerMessage = { log: string } | { result: VariantResult } | { error: string };

/** The naive baseline in a worker thread: its own event loop, emulator and client limiter. */
function naiveInWorker(
  size: ScaleWorld,
  parallel: number,
  log: (line: string) => void,
): { result: Promise<VariantResult>; stop: () => Promise<unknown> } {
  const data: NaiveWorkerData = { benchScaleNaive: { size, parallel } };
  const worker = new Worker(__filename, { workerData: data });
  const result = new Promise<VariantResult>((resolve, reject) => {
    let settled = false;
    worker.on("message", (m: NaiveWorkerMessage) => {
      if ("log" in m) log(m.log);
      else {
        settled = true;
        if ("result" in m) resolve(m.result);
        else reject(new Error(`naive baseline: ${m.error}`));
      }
    });
    worker.on("error", (e) => ((settled = true), reject(e)));
    worker.on("exit", (code) => {
      if (!settled) reject(new Error(`naive baseline worker exited with code ${code} before answering`));
    });
  });
  return { result, stop: () => worker.terminate() };
}

if (!isMainThread && (workerData as NaiveWorkerData | undefined)?.benchScaleNaive) {
  const { size, parallel } = (workerData as NaiveWorkerData).benchScaleNaive;
  const post = (m: NaiveWorkerMessage) => parentPort!.postMessage(m);
  naiveVariant(size, parallel, (line) => post({ log: line })).then(
    (result) => post({ result }),
    (e) => post({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  );
}

/** Runs the scale benchmark: per-member resources and rosters one after the other, the naive baseline beside them. */
export async function benchScale(opts: ScaleBenchOptions = {}): Promise<ScaleResult> {
  const size = opts.world ?? FULL_WORLD;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const parallel = opts.naiveParallel ?? 64;
  const naiveMode = opts.naive ?? "concurrent";
  const t0 = performance.now();
  const load0 = os.loadavg();
  log(`scale: ${size.members} members, ${size.databases} databases x ${size.usersPerDatabase} users; naive baseline ${naiveMode}`);
  const naiveRun = naiveMode === "concurrent" ? naiveInWorker(size, parallel, log) : undefined;
  naiveRun?.result.catch(() => {}); // awaited below; do not let it reject unhandled meanwhile
  const programs = {} as Record<ProgramVariant, VariantResult>;
  try {
    for (const name of PROGRAM_VARIANTS) programs[name] = await programVariant(name, size, log);
  } catch (e) {
    await naiveRun?.stop();
    throw e;
  }
  const naive = naiveRun ? await naiveRun.result : await naiveVariant(size, parallel, log);
  const variants = { ...programs, naive };
  const ratios = Object.fromEntries(
    PROGRAM_VARIANTS.map((k) => [
      k,
      Object.fromEntries(
        PHASES.map((p) => [
          p,
          {
            requests: ratio(variants[k].phases[p].requests, naive.phases[p].requests),
            wall: ratio(variants[k].phases[p].wallMs, naive.phases[p].wallMs),
          },
        ]),
      ),
    ]),
  ) as ScaleResult["ratios"];
  const goals = goalsOf(size, variants);
  const workers = 4 * os.cpus().length;
  const notes = [
    `Under the engine the programs ran with the CLI's default --parallel: ${workers} workers (4 x ${os.cpus().length} CPUs). A per-member create holds its worker while it waits in the E19 batch window, so one E19 call adds at most ${workers} people: large organizations should use rosters (one OrganizationMembers adds up to 100 people per call). The harness ran every registration at once, so its per-member figures batch far more than the engine can.`,
    "Rosters remove nobody on destroy (deleting a roster stops managing; see organizationMembers.ts): their destroy sends no request and leaves everyone in place, unlike the naive and per-member destroys, which remove every member and database user.",
    "The engine deletes independent resources in waves on its workers; at 25 requests per second the rate limit sets the destroy's wall time.",
    `The naive no-change up sends nothing (a preview without refresh reads nothing), so its ratios are undefined (null).`,
    `Emulator rate limit ${EMULATOR_RATE}/s per account; the provider's client and the naive client at ${CLIENT_RATE}/s, whose limiter allows floor(rate) requests per 1.05 s: the "floor" is the least wall time that allows (42 ms a request).`,
    naiveMode === "concurrent"
      ? "The naive baseline ran in a worker thread, in its own emulator (its own rate-limit account), while the programs ran one after the other; it is bound by the rate limit, not by CPU."
      : "The naive baseline ran after the programs.",
    `Load average (1/5/15 min) ${load0.map(round2).join(" ")} at the start, ${os.loadavg().map(round2).join(" ")} at the end, on ${os.cpus().length} CPUs: other work on the machine inflates the CPU-bound parts (no-change up, refresh).`,
  ];
  return {
    world: { ...size, databaseUsers: size.databases * size.usersPerDatabase, organizationId: ORG },
    rateLimit: { emulatorPerSecond: EMULATOR_RATE, clientPerSecond: CLIENT_RATE },
    goalConstant: GOAL_CONSTANT,
    variants,
    ratios,
    goals,
    allGoalsMet: goals.every((g) => g.met),
    notes,
    totalWallMs: Math.round(performance.now() - t0),
    loadAverage: { start: load0.map(round2), end: os.loadavg().map(round2) },
    naiveMode,
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

// ---------------------------------------------------------------------------------------------
// Reports

const secs = (ms: number) => (ms / 1000).toFixed(1);
const times = (r: number | null) => (r === null ? "-" : `${r.toFixed(2)}x`);

/** "mean 25, median 16, max 100; sizes 100 51 16 ..." */
export function batchSummary(sizes: number[]): string {
  const sorted = [...sizes].sort((a, b) => a - b);
  const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  const median = sorted[Math.floor(sorted.length / 2)];
  const shown = sizes.length > 40 ? `${sizes.slice(0, 40).join(" ")} ...` : sizes.join(" ");
  return `mean ${mean.toFixed(1)}, median ${median}, max ${sorted[sorted.length - 1]}; in order: ${shown}`;
}

/** The figures as a plain-text report for the terminal. */
export function scaleText(r: ScaleResult): string {
  const lines: string[] = [];
  const { world: w } = r;
  lines.push(
    `Scale benchmark: ${w.members} members, ${w.databases} databases x ${w.usersPerDatabase} users (${w.databaseUsers} database users), organization ${w.organizationId}`,
  );
  lines.push(`Emulator limit ${r.rateLimit.emulatorPerSecond} req/s per account; client ${r.rateLimit.clientPerSecond} req/s.`);
  for (const k of [...PROGRAM_VARIANTS, "naive"] as const) {
    const v = r.variants[k];
    lines.push("");
    lines.push(`${k}: ${v.description}`);
    lines.push(`  driven by ${v.driver}`);
    lines.push(
      `  ${"phase".padEnd(18)} ${"requests".padStart(8)} ${"vs naive".padStart(9)} ${"wall s".padStart(8)} ${"vs naive".padStart(9)} ${"floor s".padStart(8)} ${"429s".padStart(5)}  by operation`,
    );
    for (const p of PHASES) {
      const x = v.phases[p];
      const rr = k === "naive" ? null : r.ratios[k][p];
      const ops = Object.entries(x.byOperation)
        .map(([op, n]) => `${opLabel(op).split(" ")[0]}:${n}`)
        .join(" ");
      lines.push(
        `  ${PHASE_LABEL[p].padEnd(18)} ${String(x.requests).padStart(8)} ${(rr ? times(rr.requests) : "").padStart(9)} ${secs(x.wallMs).padStart(8)} ${(rr ? times(rr.wall) : "").padStart(9)} ${secs(x.rateFloorMs).padStart(8)} ${String(x.throttled).padStart(5)}  ${ops}${x.verified.ok ? "" : `  VERIFY FAILED: ${x.verified.detail}`}`,
      );
      if (x.memory)
        lines.push(
          `  ${"".padEnd(18)} peak memory: CLI ${mib(x.memory.cli)}, plugin ${mib(x.memory.plugin)}; checkpoint ${mib(x.checkpointBytes ?? 0)}`,
        );
    }
  }
  lines.push("");
  for (const k of PROGRAM_VARIANTS) {
    const sizes = r.variants[k].phases.create.e19BatchSizes ?? [];
    if (sizes.length)
      lines.push(`${k} create: ${sizes.length} E19 calls for ${sizes.reduce((a, b) => a + b, 0)} people: ${batchSummary(sizes)}`);
  }
  lines.push("");
  lines.push("Goals:");
  for (const g of r.goals) {
    const measured = Object.entries(g.measured)
      .map(([k, m]) => `${k} ${m}`)
      .join(", ");
    lines.push(`  [${g.met ? "met" : "NOT MET"}] ${g.description}${g.limit !== null ? ` (limit ${g.limit})` : ""}: ${measured}`);
  }
  lines.push(`All goals met: ${r.allGoalsMet ? "yes" : "NO"}. Total ${secs(r.totalWallMs)} s.`);
  return lines.join("\n");
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** The figures as Markdown, for the README. */
export function scaleMarkdown(r: ScaleResult): string {
  const { world: w } = r;
  const out: string[] = [];
  out.push(`### Scale: ${w.members.toLocaleString("en-US")} members, ${w.databases} databases × ${w.usersPerDatabase} users`);
  out.push("");
  out.push(
    `Emulator at the service's ${r.rateLimit.emulatorPerSecond} requests/s, client at its default ${r.rateLimit.clientPerSecond}/s. ` +
      `Per-member: ${r.variants.perMember.description}. Rosters: ${r.variants.rosters.description}. ` +
      `Naive: ${r.variants.naive.description}. Engine: ${r.variants.perMember.driver}. Harness: ${r.variants.perMemberHarness.driver}.`,
  );
  out.push("");
  out.push("Requests (wall time), by phase; the ratio is to the naive baseline:");
  out.push("");
  out.push("| phase | naive | per-member, engine | rosters, engine | per-member, harness | rosters, harness | 429s |");
  out.push("|---|---:|---:|---:|---:|---:|---:|");
  const nv = r.variants.naive;
  for (const p of PHASES) {
    const cell = (k: ProgramVariant) => {
      const x = r.variants[k].phases[p];
      const rr = r.ratios[k][p].requests;
      return `${x.requests}${rr === null ? "" : ` (${times(rr)})`}, ${secs(x.wallMs)} s`;
    };
    const t429 = Object.values(r.variants).reduce((n, v) => n + v.phases[p].throttled, 0);
    out.push(
      `| ${PHASE_LABEL[p]} | ${nv.phases[p].requests}, ${secs(nv.phases[p].wallMs)} s | ${cell("perMember")} | ${cell("rosters")} | ${cell("perMemberHarness")} | ${cell("rostersHarness")} | ${t429} |`,
    );
  }
  out.push("");
  out.push("Under the engine, peak resident memory of the CLI and of the dynamic-provider plugin, and the checkpoint after each phase:");
  out.push("");
  out.push("| phase | per-member: CLI | plugin | checkpoint | rosters: CLI | plugin | checkpoint |");
  out.push("|---|---:|---:|---:|---:|---:|---:|");
  for (const p of PHASES) {
    const m = (k: "perMember" | "rosters") => {
      const x = r.variants[k].phases[p];
      return `${mib(x.memory?.cli ?? 0)} | ${mib(x.memory?.plugin ?? 0)} | ${mib(x.checkpointBytes ?? 0)}`;
    };
    out.push(`| ${PHASE_LABEL[p]} | ${m("perMember")} | ${m("rosters")} |`);
  }
  for (const k of PROGRAM_VARIANTS) {
    const sizes = r.variants[k].phases.create.e19BatchSizes ?? [];
    if (!sizes.length) continue;
    const sorted = [...sizes].sort((a, b) => a - b);
    out.push("");
    out.push(
      `${k} create sent ${sizes.length} E19 calls for ${sizes.reduce((a, b) => a + b, 0)} people (median ${sorted[Math.floor(sorted.length / 2)]}, largest ${sorted[sorted.length - 1]} per call).`,
    );
  }
  out.push("");
  out.push("Goals, judged under the engine:");
  out.push("");
  out.push("| goal | limit | per-member | rosters | met |");
  out.push("|---|---:|---:|---:|---|");
  for (const g of r.goals) {
    const m = (k: string) => (g.measured[k] === undefined ? "-" : String(g.measured[k]));
    const extra = g.measured.naive !== undefined ? ` (naive ${g.measured.naive})` : "";
    out.push(`| ${g.description}${extra} | ${g.limit ?? 0} | ${m("perMember")} | ${m("rosters")} | ${g.met ? "yes" : "**no**"} |`);
  }
  out.push("");
  for (const n of r.notes) out.push(`- ${n}`);
  return out.join("\n");
}
