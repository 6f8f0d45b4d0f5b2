/**
 * The parallel-stacks benchmark (issue 57): a firm of five organizations as one stack with one key,
 * against five stacks, one per organization (`export --per-organization`), each with its
 * organization's own key, run at once on this machine; and each of the five alone, which is what
 * each runner of a CI matrix of five takes (a matrix's wall is its slowest job's).
 *
 * The service's limit is 25 requests a second per authenticating account (an organization-level
 * key is an account of its own), so each figure is put against its rate floor: the requests of its
 * busiest account over 25 a second. The one stack's key is Ada's (a user who is org admin of the
 * five); the five stacks' keys are organization keys. Each phase's requests come from the
 * emulator's log, by account.
 *
 * The emulator runs in this thread: the programs run in the Pulumi CLI's processes, so this
 * thread only waits while they run (emulatorThread.ts is for programs run in this thread).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { addSyntheticDatabases, addSyntheticMembers, SEEDED, startEmulator, type RunningEmulator } from "../emulator";
import { EngineStack } from "../harness/engineStack";
import { pulumiVersion } from "../harness/pulumiCli";
import { tsc, writesIn } from "./exportedProject";
import { runBin } from "./stackReads";

/** The firm: organizations of the same size. */
export interface ParallelWorld {
  organizations: number;
  /** Synthetic members of each organization. */
  members: number;
  /** Databases of each organization, each with `usersPerDatabase` new members holding DB_UPLOAD on it. */
  databases: number;
  usersPerDatabase: number;
}

/**
 * The firm: five organizations of some 20,000 people each (15,000 members and 200 databases
 * x 25 users, who are members too), 100,000 people and 1,000 databases in all.
 */
export const PARALLEL_WORLD: ParallelWorld = { organizations: 5, members: 15_000, databases: 200, usersPerDatabase: 25 };
/** A small firm for a fast check. */
export const QUICK_PARALLEL_WORLD: ParallelWorld = { organizations: 5, members: 300, databases: 3, usersPerDatabase: 5 };

const RATE = 25;
const NAMES = ["Northwind London", "Northwind New York", "Northwind Paris", "Northwind Singapore", "Northwind Sydney"];

/** One phase of one arrangement. */
export interface ParallelRun {
  requests: number;
  writes: number;
  /** 429 answers (retried by the client, so also in requests). */
  throttled: number;
  wallMs: number;
  /** The busiest account's requests over 25 a second. */
  rateFloorMs: number;
}

/** The three phases: the first up (adopting), a no-change up, a refresh. */
export interface ParallelPhases {
  firstUp: ParallelRun;
  noChangeUp: ParallelRun;
  refresh: ParallelRun;
}

/** Everything the benchmark measured. */
export interface ParallelStacksResult {
  world: ParallelWorld & { peoplePerOrganization: number; people: number };
  /** The five organizations in one stack, with one key (one account). */
  oneStack: ParallelPhases;
  /** One stack per organization, each with its organization's key, all at once. */
  fiveStacks: ParallelPhases;
  /** Each organization's stack alone, one after the other: each phase's runs. */
  alone: { firstUp: ParallelRun[]; noChangeUp: ParallelRun[]; refresh: ParallelRun[] };
  notes: string[];
  totalWallMs: number;
}

/** The firm in the seeded world: `w.organizations` new organizations, Ada (orgAdmin) org admin of each, and an organization key of each. */
function seedFirm(emu: RunningEmulator, w: ParallelWorld): { id: number; key: string }[] {
  const store = emu.store;
  const orgs: { id: number; key: string }[] = [];
  for (let i = 0; i < w.organizations; i++) {
    const org = store.organizations.create({ name: NAMES[i] ?? `Northwind office ${i + 1}` });
    store.members.seed(org.id, SEEDED.users.orgAdmin, ["ORG_ADMIN"]);
    addSyntheticMembers(store, org.id, w.members);
    addSyntheticDatabases(store, org.id, w.databases, w.usersPerDatabase);
    orgs.push({ id: org.id, key: store.apiKeys.mintOrganizationKey(org.id, `bench ${org.id}`).key });
  }
  store.changed();
  return orgs;
}

/** Runs `runs` at once and measures them from the emulator's log. */
async function measure(emu: RunningEmulator, runs: (() => Promise<unknown>)[]): Promise<ParallelRun> {
  emu.traffic.log.reset();
  const t0 = performance.now();
  await Promise.all(runs.map((run) => run()));
  const wallMs = Math.round(performance.now() - t0);
  const perAccount = new Map<string, number>();
  for (const e of emu.traffic.log.list()) perAccount.set(e.account ?? "", (perAccount.get(e.account ?? "") ?? 0) + 1);
  const c = emu.traffic.log.counters;
  return {
    requests: c.total,
    writes: Object.values(writesIn(c.byOperation)).reduce((a, b) => a + b, 0),
    throttled: c.byStatus["429"] ?? 0,
    wallMs,
    rateFloorMs: Math.round((Math.max(0, ...perAccount.values()) / RATE) * 1000),
  };
}

/** A stack of the compiled program in `dir`, with `key`. */
function stackOf(project: string, emuUrl: string, key: string): EngineStack {
  return new EngineStack({
    project,
    stack: "bench",
    config: { "reviewadmin:apiKey": key, "reviewadmin:baseUrl": emuUrl },
    secretConfigKeys: ["reviewadmin:apiKey"],
    keepState: false,
  });
}

/** Runs the benchmark on `world`. */
export async function benchParallelStacks(
  opts: { world?: ParallelWorld; log?: (line: string) => void } = {},
): Promise<ParallelStacksResult> {
  const world = opts.world ?? PARALLEL_WORLD;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const t0 = performance.now();
  const emu = await startEmulator({ rateLimit: RATE });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-bench-parallel-"));
  const stacks: EngineStack[] = [];
  try {
    log(
      `parallel stacks: seeding ${world.organizations} organizations of ${world.members} members and ${world.databases} x ${world.usersPerDatabase} users`,
    );
    const orgs = seedFirm(emu, world);
    const adaKey = path.join(tmp, "key");
    fs.writeFileSync(adaKey, emu.keys.orgAdmin!, { mode: 0o600 });
    const exportArgs = [...orgs.flatMap((o) => ["--org", String(o.id)]), "--base-url", emu.url, "--api-key-file", adaKey, "--quiet"];
    const one = path.join(tmp, "one", "access");
    const split = path.join(tmp, "split", "access");
    log("parallel stacks: exporting the firm as one project, then one project per organization...");
    const exported = await runBin(["export", ...exportArgs, "--out", one]);
    if (exported.code !== 0) throw new Error(`export failed: ${exported.stderr.trim()}`);
    const perOrg = await runBin(["export", ...exportArgs, "--per-organization", "--out", split, "--json"]);
    if (perOrg.code !== 0) throw new Error(`export --per-organization failed: ${perOrg.stderr.trim()}`);
    const projects = (JSON.parse(perOrg.stdout) as { projects: { id: number; folder: string; project: string }[] }).projects;

    log("parallel stacks: compiling the six projects with tsc (the first installs this package from a packed tarball)...");
    for (const dir of [one, ...projects.map((p) => path.join(split, p.folder))]) {
      const compiled = tsc(dir, { emit: true });
      if (!compiled.ok) throw new Error(`${dir} does not compile:\n${compiled.output}`);
    }
    const programOf = (p: { folder: string }) => path.join(split, p.folder, "bin", "index.js");
    const keyOf = (id: number) => orgs.find((o) => o.id === id)!.key;
    const newStacks = () => projects.map((p) => stackOf(p.project, emu.url, keyOf(p.id)));
    const phases = async (label: string, run: (kind: "firstUp" | "noChangeUp" | "refresh") => (() => Promise<unknown>)[]) => {
      const out = {} as ParallelPhases;
      for (const kind of ["firstUp", "noChangeUp", "refresh"] as const) {
        out[kind] = await measure(emu, run(kind));
        const r = out[kind];
        log(
          `parallel stacks: ${label}, ${kind}: ${r.requests} requests, ${r.writes} writes, ${(r.wallMs / 1000).toFixed(1)} s (rate floor ${(r.rateFloorMs / 1000).toFixed(1)} s)`,
        );
      }
      return out;
    };
    const runOf = (stack: EngineStack, program: string, kind: "firstUp" | "noChangeUp" | "refresh") =>
      kind === "refresh" ? () => stack.refresh() : () => stack.up(program, { expectNoChanges: kind === "noChangeUp" });

    const whole = stackOf("access", emu.url, emu.keys.orgAdmin!);
    stacks.push(whole);
    const oneStack = await phases("one stack, one key", (kind) => [runOf(whole, path.join(one, "bin", "index.js"), kind)]);
    const parallel = newStacks();
    stacks.push(...parallel);
    const fiveStacks = await phases(`${projects.length} stacks, ${projects.length} keys, at once`, (kind) =>
      parallel.map((s, i) => runOf(s, programOf(projects[i]!), kind)),
    );
    const single = newStacks();
    stacks.push(...single);
    const alone: ParallelStacksResult["alone"] = { firstUp: [], noChangeUp: [], refresh: [] };
    for (const [i, s] of single.entries()) {
      const phase = await phases(`${projects[i]!.folder} alone`, (kind) => [runOf(s, programOf(projects[i]!), kind)]);
      for (const kind of ["firstUp", "noChangeUp", "refresh"] as const) alone[kind].push(phase[kind]);
    }
    const peoplePerOrganization = emu.store.members.of(orgs[0]!.id).length;
    return {
      world: { ...world, peoplePerOrganization, people: peoplePerOrganization * orgs.length },
      oneStack,
      fiveStacks,
      alone,
      notes: [
        `Emulator and clients at ${RATE} requests/s per account; the Pulumi CLI ${pulumiVersion() ?? ""} (Automation API, local backends), each project compiled by tsc and its bin/index.js run. The one stack runs with a user's key (one account); each of the five with its organization's key (an account each).`,
        `Load average (1/5/15 min) at the end: ${os
          .loadavg()
          .map((x) => x.toFixed(2))
          .join(" ")} on ${os.cpus().length} CPUs: the five stacks at once share them.`,
      ],
      totalWallMs: Math.round(performance.now() - t0),
    };
  } finally {
    for (const s of stacks) await s.close();
    await emu.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const slowest = (runs: ParallelRun[]): ParallelRun => runs.reduce((a, b) => (b.wallMs > a.wallMs ? b : a));
const STEPS = [
  ["firstUp", "first up (adopts)"],
  ["noChangeUp", "no-change up"],
  ["refresh", "refresh"],
] as const;

/** The table: each phase in the three arrangements, against its rate floor. */
export function parallelStacksMarkdown(r: ParallelStacksResult): string {
  const w = r.world;
  const row = (step: string, arrangement: string, p: ParallelRun) =>
    `| ${step} | ${arrangement} | ${p.requests} | ${p.writes} | ${secs(p.wallMs)} | ${secs(p.rateFloorMs)} | ${p.rateFloorMs ? (p.wallMs / p.rateFloorMs).toFixed(2) : "-"} |`;
  const lines = [
    `### One stack or one per organization: ${w.organizations} organizations of ${w.peoplePerOrganization.toLocaleString("en-US")} people (${w.people.toLocaleString("en-US")} in all)`,
    "",
    `Each organization: ${w.members.toLocaleString("en-US")} synthetic members and ${w.databases} databases x ${w.usersPerDatabase} users, exported once as one project and once with \`--per-organization\`. The rate floor is the busiest account's requests over ${RATE} a second; a CI matrix of ${w.organizations} runners takes its slowest job, the organization's stack alone.`,
    "",
    "| step | arrangement | requests | writes | wall | rate floor | ratio |",
    "|---|---|---:|---:|---:|---:|---:|",
  ];
  for (const [kind, step] of STEPS) {
    lines.push(
      row(step, "one stack, one key", r.oneStack[kind]),
      row(step, `${w.organizations} stacks, ${w.organizations} keys, at once on this machine`, r.fiveStacks[kind]),
      row(step, `one organization's stack alone, the slowest of ${w.organizations} (a CI matrix's wall)`, slowest(r.alone[kind])),
    );
  }
  lines.push("", ...r.notes.map((n) => `- ${n}`));
  return lines.join("\n");
}

/** The figures as plain text for the terminal. */
export function parallelStacksText(r: ParallelStacksResult): string {
  const lines = [`Parallel stacks: ${r.world.organizations} organizations of ${r.world.peoplePerOrganization} people`];
  for (const [kind, step] of STEPS) {
    const one = r.oneStack[kind];
    const five = r.fiveStacks[kind];
    const matrix = slowest(r.alone[kind]);
    lines.push(
      `  ${step}: one stack ${secs(one.wallMs)} (floor ${secs(one.rateFloorMs)}); ${r.world.organizations} at once ${secs(five.wallMs)} (floor ${secs(five.rateFloorMs)}); alone, slowest ${secs(matrix.wallMs)}`,
    );
  }
  return lines.join("\n");
}
