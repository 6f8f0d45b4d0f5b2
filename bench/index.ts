/**
 * `npm run bench`: the scale benchmark (bench/scale.ts, issue 8), the upload benchmark
 * (bench/upload.ts, issue 7) and the export benchmark (bench/export.ts, issue 14, with the review
 * packet's, bench/reviewPacket.ts, issue 36). Writes every figure as JSON (default
 * bench/results/latest.json; latest-quick.json with `--quick`) and the tables as Markdown beside it (same name, `.md`), which
 * docs/benchmarks.md quotes. `--enterprise` runs the export benchmark alone on the enterprise world
 * (bench/results/enterprise.json); `--only review` the review packet's alone, on the chosen world
 * (bench/results/review-packet[-enterprise|-<N/1000>k|-quick].json); `--only roster` the roster steps' (bench/rosterSteps.ts,
 * bench/results/roster-steps.json); `--only parallel` one stack against one per organization
 * (bench/parallelStacks.ts, bench/results/parallel-stacks[-quick].json). `--enterprise --people N`
 * runs the export benchmark on a firm of N people in five organizations (exportWorld.ts;
 * bench/results/enterprise-<N/1000>k.json); `--month` the GitOps month on the enterprise world
 * (bench/month.ts, bench/results/month.json).
 *
 *   node dist/bench/index.js [--quick | --enterprise [--people N] | --month] [--only scale|upload|export|review|roster|parallel|profile] [--variants LIST] [--out <file>] [--sequential] [--strict] [--help]
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { inspect } from "node:util";
import { ENTERPRISE_WORLD, EXPORT_WORLD, benchExport, type ExportBenchResult } from "./export";
import { exportMarkdown, exportText } from "./exportReport";
import { FIRM_ORGANIZATIONS, firmWorld } from "./exportWorld";
import { benchMonth, monthMarkdown, type MonthResult } from "./month";
import { benchReviewPacketAlone, reviewPacketMarkdown, reviewPacketText, reviewStepRow, type ReviewPacketResult } from "./reviewPacket";
import { useCli } from "../harness/pulumiCli";
import { benchRosterSteps, rosterStepsMarkdown, rosterStepsText, type RosterStepsResult } from "./rosterSteps";
import {
  benchParallelStacks,
  PARALLEL_WORLD,
  parallelStacksMarkdown,
  parallelStacksText,
  QUICK_PARALLEL_WORLD,
  type ParallelStacksResult,
} from "./parallelStacks";
import { benchProfile, profileMarkdown, type ProfileResult } from "./profile";
import { benchScale } from "./scale";
import { scaleMarkdown, scaleText } from "./scaleReport";
import { FULL_WORLD, PROGRAM_VARIANTS, QUICK_WORLD, type ProgramVariant, type ScaleResult } from "./scaleWorld";
import { benchUpload, uploadMarkdown, uploadText, type UploadBenchResult } from "./upload";

/** The quick upload: a small file, one round (the full one is 1 GiB, best of 2). */
const QUICK_UPLOAD = { fileBytes: 64 * 1024 * 1024, rounds: 1 };

const USAGE = `Usage: npm run bench -- [options]   (or: node dist/bench/index.js [options])

Runs the benchmarks against the emulator, at the service's rate limit (25 requests/s).

Options:
  --quick              a fast check: scale and export with ${QUICK_WORLD.members} members, ${QUICK_WORLD.databases} databases x ${QUICK_WORLD.usersPerDatabase} users;
                       upload of a ${QUICK_UPLOAD.fileBytes / 1024 / 1024} MiB file, ${QUICK_UPLOAD.rounds} round
  --enterprise         the export benchmark alone, on the enterprise world: ${ENTERPRISE_WORLD.members} members and
                       ${ENTERPRISE_WORLD.databases} databases x ${ENTERPRISE_WORLD.usersPerDatabase} users (8 to 15 minutes under the engine); results in
                       bench/results/enterprise.json unless --out says otherwise
  --people N           with --enterprise: a firm of N synthetic people instead (at least 5,000), in
                       ${FIRM_ORGANIZATIONS} organizations of N/${FIRM_ORGANIZATIONS} (one database of 40 users per 100 people, 5%
                       of each organization's members in the next one too), one key, one stack: 100000
                       is issue 57's firm (1,000 databases; about 30 minutes); results in
                       bench/results/enterprise-<N/1000>k.json unless --out says otherwise
  --month              the GitOps month of test/engine/gitops.test.ts on the enterprise world, each
                       step as its workflow's command at a shell (bench/month.ts; about 15 minutes);
                       results in bench/results/month.json unless --out says otherwise
  --only NAME          run one benchmark only: scale, upload, export, or review (the review packet
                       of the export's world, or the enterprise world's with --enterprise, or the
                       firm's with --enterprise --people N, and review.html in headless Chromium; the
                       export benchmark includes it; results in
                       bench/results/review-packet[-enterprise|-<N/1000>k|-quick].json unless --out says otherwise),
                       or roster (the steps of a 28,007-person roster that a no-change run pays, each
                       against its baseline, in fresh processes; no engine, under a minute; results in
                       bench/results/roster-steps.json unless --out says otherwise), or parallel (a firm of
                       ${PARALLEL_WORLD.organizations} organizations of ${PARALLEL_WORLD.members} members and ${PARALLEL_WORLD.databases} databases x ${PARALLEL_WORLD.usersPerDatabase} users as one stack with one key, against one
                       stack per organization with its own key, at once and each alone; some 12 minutes
                       under the engine; results in bench/results/parallel-stacks[-quick].json), or
                       profile (where the exported program's engine steps spend their time: the
                       engine's CPU profile and every Node.js process's, by whose code; the enterprise
                       world, or a firm with --enterprise --people N; needs Go to read the engine's
                       profile; results in bench/results/profile-<N/1000>k.json)
  --out <file>         JSON results file (default bench/results/latest.json, latest-quick.json
                       with --quick); the Markdown tables go beside it with the extension .md
  --variants LIST      the scale benchmark alone, with only these program variants (comma-separated:
                       perMember, perMemberTuned, rosters); the naive baseline always runs. Results
                       go to bench/results/scale-<variants>[-quick].json unless --out says otherwise
  --sequential         scale: run the naive baseline after the programs instead of beside
                       them in a worker thread (it is rate-bound either way; this takes longer)
  --strict             exit with code 1 when a goal is not met (default: report it, exit 0)
  --help               this text

The full scale benchmark (${FULL_WORLD.members} members, ${FULL_WORLD.databases} databases x ${FULL_WORLD.usersPerDatabase} users) takes about 35 minutes on 2 CPUs
under the engine: the per-member program with the engine's defaults alone takes about 20 (its
checkpoints), the tuned one (--variants perMemberTuned) about 9, the naive baseline, beside
them, sends one request per resource at 25/s in each phase. The upload benchmark (1 GiB, best of 2 rounds) about a minute. The export benchmark
(export of ${EXPORT_WORLD.members} members and ${EXPORT_WORLD.databases} databases x ${EXPORT_WORLD.usersPerDatabase} users, then the exported program's first up,
a no-change up and a refresh) under a minute.
`;

interface Args {
  quick: boolean;
  enterprise: boolean;
  month: boolean;
  sequential: boolean;
  strict: boolean;
  /** The benchmark to run alone ("month": --month). */
  only?: "scale" | "upload" | "export" | "review" | "roster" | "parallel" | "profile" | "month";
  /** --enterprise: a firm of this many people (exportWorld.ts's firmWorld) instead of the enterprise world. */
  people?: number;
  /** scale: the program variants to run (default all). */
  variants?: ProgramVariant[];
  out: string;
}

const repoRoot = path.resolve(__dirname, "../..");

function parseArgs(argv: string[]): Args | "help" {
  const args: Args = { quick: false, enterprise: false, month: false, sequential: false, strict: false, out: "" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (name: string) => {
      const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (v === undefined || v === "") throw new UsageError(`${name} needs a value`);
      return v;
    };
    if (a === "--help" || a === "-h") return "help";
    else if (a === "--quick") args.quick = true;
    else if (a === "--enterprise") args.enterprise = true;
    else if (a === "--month") args.month = true;
    else if (a === "--sequential") args.sequential = true;
    else if (a === "--strict") args.strict = true;
    else if (a === "--people" || a.startsWith("--people=")) {
      const v = value("--people");
      if (!/^\d+$/.test(v) || Number(v) < 5000) throw new UsageError(`--people takes a whole number of at least 5000, not '${v}'`);
      args.people = Number(v);
    } else if (a === "--only" || a.startsWith("--only=")) {
      const v = value("--only");
      if (v !== "scale" && v !== "upload" && v !== "export" && v !== "review" && v !== "roster" && v !== "parallel" && v !== "profile")
        throw new UsageError(`--only takes scale, upload, export, review, roster, parallel or profile, not '${v}'`);
      args.only = v;
    } else if (a === "--variants" || a.startsWith("--variants=")) {
      const vs = value("--variants").split(",");
      const unknown = vs.filter((v) => !(PROGRAM_VARIANTS as readonly string[]).includes(v));
      if (unknown.length) throw new UsageError(`--variants takes ${PROGRAM_VARIANTS.join(", ")}, not '${unknown.join(",")}'`);
      args.variants = vs as ProgramVariant[];
    } else if (a === "--out" || a.startsWith("--out=")) args.out = path.resolve(value("--out"));
    else throw new UsageError(`unknown option '${a}'`);
  }
  if (args.enterprise && args.quick) throw new UsageError("--enterprise and --quick do not go together");
  if (args.month && (args.quick || args.enterprise || args.only || args.variants))
    throw new UsageError("--month runs the month alone, on the enterprise world");
  if (args.month) args.only = "month";
  if (args.people !== undefined && !args.enterprise) throw new UsageError("--people goes with --enterprise");
  if (args.enterprise && args.only && args.only !== "export" && args.only !== "review" && args.only !== "profile")
    throw new UsageError("--enterprise runs the export benchmark (or --only review or --only profile) only");
  if (args.only === "profile" && args.quick)
    throw new UsageError("--only profile runs on the enterprise world or a firm (--enterprise --people N)");
  if (args.quick && args.only === "roster") throw new UsageError("--only roster measures 28,007 people: --quick does not go with it");
  if (args.enterprise) args.only ??= "export";
  // Program variants are the scale benchmark's: naming some runs it alone, into a file of its own.
  if (args.variants && args.only && args.only !== "scale") throw new UsageError("--variants goes with the scale benchmark only");
  if (args.variants) args.only = "scale";
  // The review packet alone writes a file of its own: it never overwrites the full runs' results.
  const review =
    args.only === "review"
      ? `review-packet${args.people !== undefined ? `-${Math.round(args.people / 1000)}k` : args.enterprise ? "-enterprise" : args.quick ? "-quick" : ""}.json`
      : undefined;
  // A run of some scale variants only writes a file of its own too.
  const some = args.variants ? `scale-${args.variants.join("-")}${args.quick ? "-quick" : ""}.json` : undefined;
  const roster =
    args.only === "roster"
      ? "roster-steps.json"
      : args.only === "parallel"
        ? `parallel-stacks${args.quick ? "-quick" : ""}.json`
        : args.only === "profile"
          ? `profile-${args.people !== undefined ? Math.round(args.people / 1000) : 28}k.json`
          : undefined;
  // A quick run never overwrites the full run's results either.
  const firm = args.people !== undefined ? `enterprise-${Math.round(args.people / 1000)}k.json` : undefined;
  const whole = args.month
    ? "month.json"
    : (firm ?? (args.enterprise ? "enterprise.json" : args.quick ? "latest-quick.json" : "latest.json"));
  args.out ||= path.join(repoRoot, "bench", "results", review ?? some ?? roster ?? whole);
  return args;
}

class UsageError extends Error {}

async function main(): Promise<number> {
  let args: Args | "help";
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`bench: ${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (args === "help") {
    process.stdout.write(USAGE);
    return 0;
  }

  const log = (line: string) => process.stderr.write(`${line}\n`);
  // The program-level figures are the real engine's: find the Pulumi CLI, or build it once.
  const needsEngine = args.only !== "upload" && args.only !== "review" && args.only !== "roster";
  const cli = needsEngine ? useCli({ build: true, log }) : undefined;
  if (cli && !cli.found) throw new Error(`the scale and export benchmarks run under the Pulumi CLI, and ${cli.reason}`);
  const started = new Date();
  const results: {
    startedAt: string;
    finishedAt?: string;
    quick: boolean;
    enterprise: boolean;
    machine: Record<string, unknown>;
    scale?: ScaleResult;
    upload?: UploadBenchResult;
    export?: ExportBenchResult;
    reviewPacket?: ReviewPacketResult;
    rosterSteps?: RosterStepsResult;
    parallelStacks?: ParallelStacksResult;
    profile?: ProfileResult;
    month?: MonthResult;
  } = {
    startedAt: started.toISOString(),
    quick: args.quick,
    enterprise: args.enterprise,
    machine: {
      node: process.version,
      platform: `${os.platform()} ${os.arch()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      ...(cli?.found ? { pulumi: cli.version } : {}),
    },
  };
  const md: string[] = [
    `## Benchmarks${args.month ? " (the month)" : args.quick ? " (quick)" : args.people ? ` (a firm of ${args.people.toLocaleString("en-US")} people)` : args.enterprise ? " (enterprise)" : ""}`,
    "",
    `Run ${started.toISOString()} on ${os.cpus().length} CPUs, Node ${process.version}${cli?.found ? `, Pulumi CLI ${cli.version}` : ""}.`,
    "",
  ];
  let goalsMet = true;

  // Opt-in: some 10 minutes under the engine, five stacks at once.
  if (args.only === "profile") {
    const profile = await benchProfile({ world: args.people ? firmWorld(args.people) : ENTERPRISE_WORLD, log });
    results.profile = profile;
    const table = profileMarkdown(profile);
    process.stdout.write(`\n${table}\n`);
    md.push(table, "");
  }

  if (args.only === "parallel") {
    const parallel = await benchParallelStacks({ world: args.quick ? QUICK_PARALLEL_WORLD : PARALLEL_WORLD, log });
    results.parallelStacks = parallel;
    process.stdout.write(`\n${parallelStacksText(parallel)}\n`);
    md.push(parallelStacksMarkdown(parallel), "");
  }

  if (args.only === undefined || args.only === "scale") {
    const scale = await benchScale({
      world: args.quick ? QUICK_WORLD : FULL_WORLD,
      log,
      naive: args.sequential ? "sequential" : "concurrent",
      variants: args.variants,
    });
    results.scale = scale;
    process.stdout.write(`${scaleText(scale)}\n`);
    md.push(scaleMarkdown(scale), "");
    goalsMet &&= scale.allGoalsMet;
  }

  if (args.only === undefined || args.only === "upload") {
    const upload = await benchUpload({ ...(args.quick ? QUICK_UPLOAD : {}), log });
    results.upload = upload;
    process.stdout.write(`\n${uploadText(upload)}\n`);
    md.push(uploadMarkdown(upload), "");
    goalsMet &&= upload.sha1Verified && upload.memory.withinBound;
  }

  if (args.only === undefined || args.only === "export") {
    const world = args.people ? firmWorld(args.people) : args.enterprise ? ENTERPRISE_WORLD : args.quick ? QUICK_WORLD : EXPORT_WORLD;
    const exported = await benchExport({ world, log });
    results.export = exported;
    process.stdout.write(`\n${exportText(exported)}\n`);
    md.push(exportMarkdown(exported, args.people ? "Firm export" : args.enterprise ? "Enterprise export" : "Export"), "");
    goalsMet &&= exported.allGoalsMet;
  }

  if (args.only === "review") {
    const world = args.people ? firmWorld(args.people) : args.enterprise ? ENTERPRISE_WORLD : args.quick ? QUICK_WORLD : EXPORT_WORLD;
    const packet = await benchReviewPacketAlone(world, log);
    results.reviewPacket = packet;
    process.stdout.write(`\n${reviewPacketText(packet)}\n`);
    md.push(
      `### Review packet alone: ${packet.people.toLocaleString("en-US")} people`,
      "",
      `\`pulumi-reviewadmin review --firm-domain northwind.example\` on ${world.organizations ? `the seeded organizations, ${world.organizations} of them each with` : "the seeded organization plus"} ${world.members.toLocaleString("en-US")} synthetic members and ${world.databases} databases × ${world.usersPerDatabase} users${world.sharedMembers ? ` (${world.sharedMembers.toLocaleString("en-US")} of its members in the next organization too)` : ""}, emulator and client at 25 requests/s, measured alone (no other benchmark in the run); each file's size, and review.html opened in headless Chromium.`,
      "",
      "| step | requests | writes | wall | CLI peak memory | plugin peak memory | checkpoint |",
      "|---|---:|---:|---:|---:|---:|---:|",
      reviewStepRow(packet),
      "",
      reviewPacketMarkdown(packet),
      "",
      `- Load average (1/5/15 min) at the end: ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")} on ${os.cpus().length} CPUs; other work on the machine inflates wall times.`,
      "",
    );
  }

  // 28,007 people each: not part of a quick check.
  if ((args.only === undefined && !args.quick) || args.only === "roster") {
    const steps = benchRosterSteps({ log });
    results.rosterSteps = steps;
    process.stdout.write(`\n${rosterStepsText(steps)}\n`);
    md.push(rosterStepsMarkdown(steps), "");
  }

  if (args.month) {
    const month = await benchMonth({ log });
    results.month = month;
    md.push(monthMarkdown(month), "");
    goalsMet &&= month.steps.every((s) => s.asExpected);
  }

  results.finishedAt = new Date().toISOString();
  fs.mkdirSync(path.dirname(args.out), { recursive: true });
  fs.writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
  const mdFile = args.out.replace(/\.json$/i, "") + ".md";
  fs.writeFileSync(mdFile, `${md.join("\n").trimEnd()}\n`);
  log(`results: ${path.relative(process.cwd(), args.out)}, ${path.relative(process.cwd(), mdFile)}`);
  if (!goalsMet) log("bench: some goals are not met (see Goals above)");
  return goalsMet || !args.strict ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    // inspect: a fetch failure says why only in its cause (the socket's error).
    process.stderr.write(`bench failed: ${inspect(e)}\n`);
    process.exit(1);
  },
);
