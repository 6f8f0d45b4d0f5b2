/**
 * The month at 28,007 people as a benchmark (issue 57, `npm run bench -- --month`): the steps of
 * test/engine/gitops.test.ts's month on the enterprise world (export.ts's ENTERPRISE_WORLD), in its
 * order: onboarding (export, first up), a pull request's preview, the merge's up, the drift job
 * clean and after changes in the web application, the repair up, the pull request accepting the
 * exception (its preview and up), an expiry day, the monthly review, and a sign-off (applied, its
 * preview and up). Each step's wall time, requests and writes against its rate floor, and the pull
 * request comment's lines and characters.
 *
 * Each step runs the command its workflow's pulumi/actions step runs, as `pulumi` at a shell (not
 * through the GitHub Actions stand-in of the tests): the action's inputs as the CLI's flags
 * (refresh: --refresh, diff: --diff, policyPacks: --policy-pack, continue-on-error, suppress-outputs;
 * an up with --yes --skip-preview, as the Automation API runs it). The comment is what the action
 * would post: the preview's standard output, ANSI codes stripped, before its cut at 64,000
 * characters. The state is on a file:// backend; git, `npm ci` and the pull request's branches are
 * left out (they do not grow with the firm).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { parse } from "csv-parse/sync";
import { parse as parseYaml } from "yaml";
import { SEEDED } from "../emulator";
import { EngineStack } from "../harness/engineStack";
import { runAsync } from "../harness/runAsync";
import { pulumiVersion } from "../harness/pulumiCli";
import { startEmulatorThread } from "./emulatorThread";
import { floorProgram } from "./engineFloor";
import { trafficOf, type Timeline } from "./export";
import { installFromTarball, repoRoot, writesIn } from "./exportedProject";
import { ENTERPRISE_WORLD, exportedWorld } from "./exportWorld";
import { sampleProcessMemory } from "./processMemory";
import { floorRow, floorsMarkdown, RATE, type FloorRow } from "./rateFloors";
import type { ScaleWorld } from "./scaleWorld";

/** One step of the month. */
export interface MonthStep {
  /** What it is, as the firm meets it. */
  step: string;
  /** The command run (in the project's folder unless it says otherwise). */
  command: string;
  requests: number;
  throttled: number;
  writes: Record<string, number>;
  writeCount: number;
  wallMs: number;
  /** Before the first request, the requests, after the last answer. */
  timeline?: Timeline;
  exitCode: number | null;
  /** What the test of the month expects of it (exit and writes), and whether it held. */
  expected: string;
  asExpected: boolean;
  cliPeakRssBytes: number;
  pluginPeakRssBytes: number;
  /** A `pulumi up` or `pulumi preview`: the engine's floor for it is that of the same command. */
  engineKind?: "up" | "preview";
  /** A pull request's preview: the comment the action would post. */
  comment?: { lines: number; characters: number; cut: boolean; namesTheChange: boolean };
}

/** What the month benchmark measured. */
export interface MonthResult {
  world: ScaleWorld & { organizationMembers: number; databases: number };
  steps: MonthStep[];
  /** The engine's own floor for as many resources that do nothing (engineFloor.ts), at a shell, refreshed as the steps are. */
  engineFloor: { resources: number; up: number; preview: number };
  floors: FloorRow[];
  notes: string[];
  totalWallMs: number;
}

const STACK = "organization/access/prod";
const PASSPHRASE = "correct horse battery staple";
const PACK = "node_modules/pulumi-reviewadmin/policy";
const NEWCOMER = "joan.newcomer@northwind.example";
const MALLORY = "mallory@evil.example";
const MARGARET = SEEDED.users.multiOrgMember;
const DB = SEEDED.databases.open;
const ORG = SEEDED.org;
const DAY = 86_400_000;
/** preview.yml's step that posts the comment. */
const COMMENT_STEP = "Comment the preview on the pull request";
const common = ["--non-interactive", "--color", "never", "--stack", STACK];
/** preview.yml: refresh, policy pack, suppress-outputs; no diff. */
const PR_PREVIEW = ["preview", "--refresh", "--policy-pack", PACK, "--suppress-outputs", ...common];
/** up.yml and expire.yml: refresh, diff, policy pack, continue-on-error, suppress-outputs. */
const UP = [
  "up",
  "--yes",
  "--skip-preview",
  "--refresh",
  "--diff",
  "--policy-pack",
  PACK,
  "--continue-on-error",
  "--suppress-outputs",
  ...common,
];
/** preview.yml's type-check, before its preview. */
const TYPE_CHECK = ["tsc", "--noEmit"];
/** What the workflows' pulumi steps set beside the key (access.ts type-checked once, by preview.yml). */
const WORKFLOW_ENV = { PULUMI_NODEJS_TRANSPILE_ONLY: "true" };
/** drift.yml: a refreshed preview that fails on any change. */
const DRIFT = ["preview", "--refresh", "--expect-no-changes", "--diff", "--policy-pack", PACK, "--suppress-outputs", ...common];

/** Runs the month on `world` (default: the enterprise world, 28,007 people). */
export async function benchMonth(opts: { world?: ScaleWorld; log?: (line: string) => void } = {}): Promise<MonthResult> {
  const world = opts.world ?? ENTERPRISE_WORLD;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const t0 = performance.now();
  const loadAtStart = loadavg();
  log(`month: seeding ${world.members} members, ${world.databases} databases x ${world.usersPerDatabase} users`);
  const emu = await startEmulatorThread({ rateLimit: RATE, scale: world });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-bench-month-"));
  const ws = path.join(root, "repo");
  const access = path.join(ws, "access");
  fs.mkdirSync(path.join(root, "state"), { recursive: true });
  fs.mkdirSync(ws);
  const env = {
    PULUMI_BACKEND_URL: `file://${path.join(root, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    REVIEWADMIN_API_KEY: emu.keys.orgAdmin!,
    REVIEWADMIN_BASE_URL: emu.url,
  };
  const steps: MonthStep[] = [];
  try {
    const seeded = exportedWorld(await emu.control("GET", "/state"));
    const dayIn = async (n: number) =>
      new Date(Date.parse((await emu.control<{ now: string }>("GET", "/clock")).now) + n * DAY).toISOString().slice(0, 10);
    /** Runs and measures one step; `expect` judges its exit code and writes. */
    const step = async (
      name: string,
      cmd: string,
      args: string[],
      expect: { exit: "ok" | "fails"; writes: Record<string, number> },
      opts: { cwd?: string; comment?: string[]; atTerminal?: boolean } = {},
    ): Promise<MonthStep> => {
      log(`month: ${name}...`);
      await emu.control("DELETE", "/requests");
      const memory = sampleProcessMemory();
      const s0 = performance.now();
      const startedAt = Date.now();
      // The workflows' pulumi steps transpile access.ts only (preview.yml type-checks it once);
      // the onboarding's first up is a person's at a terminal.
      const r = await runAsync(cmd, args, { cwd: opts.cwd ?? access, env: opts.atTerminal ? env : { ...env, ...WORKFLOW_ENV } });
      const wallMs = Math.round(performance.now() - s0);
      const peaks = memory.stop();
      const { counters, timeline } = await trafficOf(emu, startedAt, wallMs);
      const writes = writesIn(counters.byOperation);
      const ok = r.code === 0;
      const asExpected = ok === (expect.exit === "ok") && JSON.stringify(sorted(writes)) === JSON.stringify(sorted(expect.writes));
      const printed = `${r.stdout}${r.stderr}`;
      const out: MonthStep = {
        step: name,
        command: [cmd === process.execPath ? "node" : cmd, ...args]
          .map((a) => a.replace(root, "$TMP").replace(repoRoot, "$REPO"))
          .join(" "),
        requests: counters.total,
        throttled: counters.byStatus["429"] ?? 0,
        writes,
        writeCount: Object.values(writes).reduce((a, b) => a + b, 0),
        wallMs,
        timeline,
        exitCode: r.code,
        expected: `${expect.exit === "ok" ? "exit 0" : "fails"}, writes ${JSON.stringify(expect.writes)}`,
        asExpected,
        cliPeakRssBytes: peaks.cli,
        pluginPeakRssBytes: peaks.plugin,
        ...(cmd === "pulumi" && (args[0] === "up" || args[0] === "preview") ? { engineKind: args[0] } : {}),
        ...(opts.comment ? { comment: await commentOf(r.stdout, opts.comment) } : {}),
      };
      steps.push(out);
      log(
        `month: ${name}: exit ${r.code}, ${out.requests} requests, writes ${JSON.stringify(writes)}, ${(wallMs / 1000).toFixed(1)} s${out.comment ? `, comment ${out.comment.lines} lines, ${out.comment.characters} characters` : ""}${asExpected ? "" : ` NOT AS EXPECTED (${out.expected}): ${printed.trim().split("\n").slice(-6).join(" | ")}`}`,
      );
      return out;
    };
    const pulumi = (args: string[]) => runAsync("pulumi", args, { cwd: access, env });
    const edit = (from: string | RegExp, to: (m: string) => string) => {
      const file = path.join(access, "access.ts");
      const text = fs.readFileSync(file, "utf8");
      const m = typeof from === "string" ? (text.includes(from) ? from : undefined) : from.exec(text)?.[0];
      if (m === undefined) throw new Error(`month: access.ts has no ${String(from)}`);
      fs.writeFileSync(file, text.replace(m, to(m)));
      return m;
    };
    const cli = path.join(repoRoot, "dist", "cli", "main.js");

    // docs/gitops.md §1: the export, the package from its tarball, the stack, its first up (adopts).
    await step(
      "onboarding: `pulumi-reviewadmin export --out access`",
      process.execPath,
      [cli, "export", "--out", "access", "--quiet"],
      ok(),
      {
        cwd: ws,
      },
    );
    log("month: installing the project's dependencies (this package from a packed tarball)...");
    installFromTarball(access);
    for (const args of [
      ["stack", "init", STACK, "--non-interactive"],
      ["config", "set", "reviewadmin:baseUrl", emu.url, "--stack", STACK],
    ]) {
      const r = await pulumi(args);
      if (r.code !== 0) throw new Error(`month: pulumi ${args.join(" ")} failed: ${r.stderr}`);
    }
    await step("onboarding: first `pulumi up` (adopts everything)", "pulumi", ["up", "--yes", ...common], ok(), { atTerminal: true });

    // preview.yml on a pull request: one member gets AI_ADMIN, one person joins until an end date.
    const changed = /^ {6}\{ email: "([^"]+)",[^\n]*permissions: \[\][^\n]*$/m.exec(
      fs.readFileSync(path.join(access, "access.ts"), "utf8"),
    )!;
    edit(changed[0], (l) => l.replace("permissions: []", `permissions: ["AI_ADMIN"]`));
    const until = await dayIn(2);
    edit("    members: [\n", (l) => `${l}      { email: "${NEWCOMER}", permissions: ["AI_ADMIN"], expiresOn: "${until}" },\n`);
    await step("a pull request's type-check (preview.yml: `npx tsc --noEmit`)", "npx", TYPE_CHECK, ok());
    await step("a pull request's preview (preview.yml: one member gets AI_ADMIN, one joins)", "pulumi", PR_PREVIEW, ok(), {
      comment: [NEWCOMER, changed[1]!],
    });
    await step("the merge's up (up.yml)", "pulumi", UP, ok({ PatchOrganizationUser: 1, PostOrganizationUsers: 1 }));

    // drift.yml: clean, then after changes in the web application (an org admin nobody declared, a grant removed).
    await step("drift job, no drift (drift.yml)", "pulumi", DRIFT, ok());
    await emu.control("POST", "/clock", { advanceMs: 60_000 });
    await emu.control("POST", `/organizations/${ORG}/members`, {
      email: MALLORY,
      firstName: "Mallory",
      lastName: "Evil",
      permissions: ["ORG_ADMIN"],
      actingUserId: SEEDED.users.parentAdminUser,
    });
    await emu.control("DELETE", `/databases/${DB}/users/${MARGARET}`);
    await step("drift job after changes in the web application (fails, naming the org admin)", "pulumi", DRIFT, fails());
    await step(
      "the repair (up.yml, dispatched: the grant put back, fails naming the org admin)",
      "pulumi",
      UP,
      fails({ PutDatabaseUser: 1 }),
    );

    // A pull request accepting the org admin: its preview, the up that stores it, the drift job clean again.
    edit("    knownExceptions: [],", () => `    knownExceptions: ["${MALLORY}"], // accepted: outside counsel for Contoso`);
    await step("a pull request accepting the exception: its type-check", "npx", TYPE_CHECK, ok());
    await step("a pull request accepting the exception: its preview", "pulumi", PR_PREVIEW, ok(), { comment: [MALLORY] });
    await step("its merge's up (stores the exception, writes nothing)", "pulumi", UP, ok());
    await step("drift job, clean again", "pulumi", DRIFT, ok());

    // expire.yml on the expiry day: the newcomer's end date has come.
    await emu.control("POST", "/clock", { advanceDays: 3 });
    await step("expiry day (expire.yml: the invitation withdrawn)", "pulumi", UP, ok({ DeleteOrganizationInvitation: 1 }));

    // review.yml's packet job: the packet judged against the stack, then verified.
    const reviewBin = path.join(access, "node_modules", ".bin", "pulumi-reviewadmin");
    const reviewArgs = [
      "review",
      "--out",
      "access-review",
      "--stack",
      STACK,
      "--expiring-days",
      "30",
      "--firm-domain",
      "northwind.example",
    ];
    await step("the monthly review (review.yml: `review --stack`)", reviewBin, reviewArgs, ok(), { cwd: ws });
    await step("the packet verified (`review verify`)", reviewBin, ["review", "verify", "access-review"], ok(), { cwd: ws });

    // The sign-off: two people removed (a member, Margaret's grant), applied, previewed, applied by the up.
    const text = fs.readFileSync(path.join(access, "access.ts"), "utf8");
    const leaver = [...text.matchAll(/^ {6}\{ email: "([^"]+)",[^\n]*permissions: \[\][^\n]*$/gm)]
      .map((m) => m[1]!)
      .find((e) => e !== changed[1])!;
    const signoff = path.join(root, "signoff.csv");
    fs.writeFileSync(signoff, signoffCsv(path.join(ws, "access-review", "review.csv"), leaver));
    const applyArgs = ["review", "apply-signoff", "--signoff", signoff, "--packet", "access-review", "--access", "access/access.ts"];
    await step("the sign-off applied (`review apply-signoff`, offline)", reviewBin, applyArgs, ok(), { cwd: ws });
    await step("the sign-off's pull request: its type-check", "npx", TYPE_CHECK, ok());
    await step("the sign-off's pull request: its preview", "pulumi", PR_PREVIEW, ok(), { comment: [leaver] });
    await step("its merge's up (two people removed)", "pulumi", UP, ok({ DeleteOrganizationUser: 1, DeleteDatabaseUser: 1 }));
    await step("drift job after the sign-off", "pulumi", DRIFT, ok());

    const engineFloor = await measureEngineFloor(access, log);
    const floors = steps
      .filter((s) => s.requests > 0 || s.engineKind)
      .map((s) => ({
        ...floorRow(s.step, s.requests, s.writeCount, s.wallMs, s.engineKind && engineFloor[s.engineKind]),
        timeline: s.timeline,
      }));
    return {
      world: { ...world, organizationMembers: seeded.organizationMembers, databases: seeded.databases.length },
      steps,
      engineFloor,
      floors,
      notes: [
        `Pulumi CLI ${pulumiVersion() ?? ""}, a file:// backend; the emulator in a worker thread and every client at ${RATE} requests/s. Each step is the command its workflow's pulumi/actions step runs, as \`pulumi\` at a shell (the action's inputs as the CLI's flags; an up with --yes --skip-preview, as the Automation API runs it), not through the GitHub Actions stand-in of test/engine/gitops.test.ts; \`npm ci\`, git and \`gh\` are left out. The program is the exported TypeScript (access.ts, index.ts), run by the CLI as the workflows run it: type-checked once per pull request (preview.yml's \`npx tsc --noEmit\`), transpiled only in the workflows' pulumi steps (PULUMI_NODEJS_TRANSPILE_ONLY=true); the onboarding's first up is a person's at a terminal, type-checked by ts-node.`,
        `The comment: what preview.yml's comment step posts (its script, read from examples/gitops/preview.yml and run in bash on the preview's standard output, a \`gh\` stand-in keeping the body): the preview without the lines of resources that do not change, cut from the front past 60,000 characters ("cut" says whether it was).`,
        `Load average (1/5/15 min) at the start: ${loadAtStart}; at the end: ${loadavg()} on ${os.cpus().length} CPUs; other work on the machine inflates wall times.`,
      ],
      totalWallMs: Math.round(performance.now() - t0),
    };
  } finally {
    await emu.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The engine's floor for the month's program (engineFloor.ts): as many dynamic resources that do
 * nothing as the exported project declares, in a stack of their own, with `pulumi up --refresh`
 * and `pulumi preview --refresh` at a shell (no policy pack, plain JavaScript).
 */
async function measureEngineFloor(project: string, log: (line: string) => void): Promise<MonthResult["engineFloor"]> {
  const access = fs.readFileSync(path.join(project, "access.ts"), "utf8");
  const resources = (access.match(/^ {4}id: \d+,$/gm) ?? []).length + (access.match(/^ {8}id: \d+,$/gm) ?? []).length;
  log(`month: the engine's floor, ${resources} resources that do nothing...`);
  fs.mkdirSync(path.join(project, "bin"), { recursive: true });
  const stack = new EngineStack({ project: "reviewadmin-floor", stack: "floor", config: {}, keepState: false });
  try {
    await stack.up(floorProgram(project, resources));
    const time = async (args: string[]) => {
      const t0 = performance.now();
      const r = await stack.cli(args);
      if (r.code !== 0) throw new Error(`month: the engine's floor, pulumi ${args.join(" ")} failed: ${r.stderr.trim()}`);
      return Math.round(performance.now() - t0);
    };
    const up = await time(["up", "--yes", "--skip-preview", "--refresh"]);
    const preview = await time(["preview", "--refresh"]);
    log(`month: the engine's floor: up --refresh ${(up / 1000).toFixed(1)} s, preview --refresh ${(preview / 1000).toFixed(1)} s`);
    return { resources, up, preview };
  } finally {
    await stack.close();
  }
}

const ok = (writes: Record<string, number> = {}) => ({ exit: "ok" as const, writes });
const fails = (writes: Record<string, number> = {}) => ({ exit: "fails" as const, writes });
const sorted = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

/**
 * What preview.yml's comment step posts of a preview's standard output: its \`run:\` script, read
 * from the workflow file, run in bash as a runner runs it, with a \`gh\` stand-in that keeps the body.
 */
async function commentOf(stdout: string, names: string[]): Promise<MonthStep["comment"]> {
  const workflow = parseYaml(fs.readFileSync(path.join(repoRoot, "examples", "gitops", "preview.yml"), "utf8")) as {
    jobs: Record<string, { steps: { name?: string; run?: string }[] }>;
  };
  const script = Object.values(workflow.jobs)[0]!.steps.find((s) => s.name === COMMENT_STEP)?.run;
  if (!script) throw new Error(`month: examples/gitops/preview.yml has no step '${COMMENT_STEP}'`);
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-month-comment-"));
  try {
    fs.mkdirSync(path.join(temp, "bin"));
    fs.writeFileSync(path.join(temp, "preview.txt"), stdout);
    fs.writeFileSync(
      path.join(temp, "bin", "gh"),
      '#!/bin/bash\nwhile [ $# -gt 0 ]; do [ "$1" = --body-file ] && cp "$2" "$RUNNER_TEMP/posted.md"; shift; done\n',
      { mode: 0o755 },
    );
    const r = await runAsync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
      env: { RUNNER_TEMP: temp, PR: "1", GH_TOKEN: "stand-in", PATH: `${path.join(temp, "bin")}${path.delimiter}${process.env.PATH}` },
    });
    if (r.code !== 0) throw new Error(`month: preview.yml's comment step failed: ${r.stderr}`);
    const body = fs.readFileSync(path.join(temp, "posted.md"), "utf8");
    return {
      lines: body.split("\n").length,
      characters: body.length,
      cut: body.includes("(cut from the front"),
      namesTheChange: names.every((n) => body.includes(n)),
    };
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

/** review.csv with two removals decided (the leaver's membership, Margaret's grant on DB), as a reviewer saves it. */
function signoffCsv(reviewCsv: string, leaver: string): string {
  const [header, ...rows] = parse(fs.readFileSync(reviewCsv, "utf8"), { bom: true, relax_column_count: true }) as string[][];
  const col = (name: string) => header!.indexOf(name);
  for (const [person, scope, why] of [
    [leaver, "organization", "left the firm"],
    ["margaret@northwind.example", `database ${DB}`, "the matter closed"],
  ] as const) {
    const row = rows.find((r) => r[col("person")] === person && r[col("scope")] === scope);
    if (!row) throw new Error(`month: review.csv has no row for ${person} on ${scope}`);
    row[col("decision")] = "remove";
    row[col("justification")] = why;
  }
  const cell = (c: string) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
  return `${[header!, ...rows].map((r) => r.map(cell).join(",")).join("\r\n")}\r\n`;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mib = (b: number) => (b ? `${(b / 1024 / 1024).toFixed(0)} MiB` : "-");

/** The month as Markdown, for bench/results/month.md. */
export function monthMarkdown(r: MonthResult): string {
  const w = r.world;
  const comments = r.steps.filter((s) => s.comment);
  return [
    `### The month at ${w.organizationMembers.toLocaleString("en-US")} people, ${w.databases} databases`,
    "",
    "The steps of test/engine/gitops.test.ts's month, in its order, each as its workflow runs it:",
    "",
    "| step | requests | writes | wall | CLI peak | plugin peak | as the test expects |",
    "|---|---:|---|---:|---:|---:|---|",
    ...r.steps.map(
      (s) =>
        `| ${s.step} | ${s.requests} | ${
          s.writeCount
            ? Object.entries(s.writes)
                .map(([op, n]) => `${op} ${n}`)
                .join(", ")
            : "0"
        } | ${secs(s.wallMs)} | ${mib(s.cliPeakRssBytes)} | ${mib(s.pluginPeakRssBytes)} | ${s.asExpected ? "yes" : `**no** (exit ${s.exitCode})`}: ${s.expected} |`,
    ),
    "",
    "The pull requests' comments (what preview.yml's comment step posts of each preview):",
    "",
    "| pull request | lines | characters | cut at 60,000 | names the change |",
    "|---|---:|---:|---|---|",
    ...comments.map(
      (s) =>
        `| ${s.step} | ${s.comment!.lines.toLocaleString("en-US")} | ${s.comment!.characters.toLocaleString("en-US")} | ${s.comment!.cut ? "**yes**" : "no"} | ${s.comment!.namesTheChange ? "yes" : "**no**"} |`,
    ),
    "",
    `Each \`pulumi\` step and each step that sends requests against its floor: its requests at 25 per second (goal: within 1.1x), or the engine's own where that is higher, for ${r.engineFloor.resources} resources that do nothing (\`pulumi up --refresh\` ${secs(r.engineFloor.up)}, \`pulumi preview --refresh\` ${secs(r.engineFloor.preview)}; plain JavaScript, no policy pack; goal: within 1.5 s):`,
    "",
    floorsMarkdown(r.floors),
    "",
    `Commands (in the exported project's folder access/, unless the step runs in the repository's root): ${[...new Set(r.steps.map((s) => `\`${s.command}\``))].join("; ")}.`,
    "",
    ...r.notes.map((n) => `- ${n}`),
  ].join("\n");
}
