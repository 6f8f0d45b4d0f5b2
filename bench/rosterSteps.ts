/**
 * The steps of a large roster that every no-change run pays (issue 35), each against its
 * baseline in the same run, each sample in a fresh process (a program and the plugin do each once
 * per run, cold): the inputs' parse by zod's compiled fast path (lifecycle.ts `compiled`) against
 * its runtime parser; and the planner's comparison of unchanged people's permission sets and
 * identifiers, stored in the declared order, against the same comparison sorting both sides
 * (normalize.ts sameSet and sameIdentifiers before their shortcut for lists in the same order).
 * Synthetic people shaped as the enterprise world's: no emulator, no engine.
 */
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { normalizeIdentifiers, sameIdentifiers, sameSet, sortedSet } from "../provider/normalize";
import { organizationMembers } from "../provider/resources/organizationMembers";

/** One step, measured and against its baseline: medians of fresh processes, in ms. */
export interface RosterStep {
  step: string;
  baseline: string;
  ms: number;
  baselineMs: number;
}

/** The steps at `people` people. */
export interface RosterStepsResult {
  people: number;
  samples: number;
  steps: RosterStep[];
}

const CASES = ["parseCompiled", "parseRuntime", "compareShortcut", "compareSorted"] as const;
type Case = (typeof CASES)[number];

/** The roster's args as an exported program passes them: emails sorted, a third with permissions, half with an identifier. */
function rosterArgs(people: number) {
  const members: Record<string, unknown> = {};
  for (let i = 0; i < people; i++) {
    const email = `person${String(i).padStart(6, "0")}@northwind.example`;
    members[email] = {
      firstName: `First${i}`,
      lastName: `Last${i}`,
      permissions: i % 3 === 0 ? ["AI_ADMIN", "LEGAL_HOLD_ADMIN"] : [],
      userIdentifiers: i % 2 === 0 ? [{ abbreviation: `P${i}`, label: `Person ${i}` }] : [],
    };
  }
  return { organizationId: 102, mode: "additive", members };
}

/** The parsed roster, as far as the comparison reads it. */
interface ParsedRoster {
  members: Record<string, { permissions?: string[]; userIdentifiers?: { abbreviation: string; label: string }[] }>;
}

/** One sample of one case in this process, in ms. */
function runCase(c: Case, people: number): number {
  const args = rosterArgs(people);
  // The schema the plugin and the program parse with (lifecycle.ts): the definition holds it.
  const schema = (organizationMembers.definition as unknown as { inputs: z.ZodType<ParsedRoster> }).inputs;
  if (c === "parseCompiled" || c === "parseRuntime") {
    const parser = c === "parseCompiled" ? z.compile(schema) : schema;
    const t = performance.now();
    if (!parser.safeParse(args).success) throw new Error("rosterSteps: the synthetic roster does not parse");
    return performance.now() - t;
  }
  // Unchanged people's lists compared as the planner does (access/plan.ts differs), stored in the
  // declared order: sameSet and sameIdentifiers, or (the baseline) by sorting both sides first, as
  // they did before their shortcut for lists in the same order.
  const pairs = Object.values(schema.parse(args).members).map((p) => ({ permissions: p.permissions ?? [], ids: p.userIdentifiers ?? [] }));
  const stored = pairs.map((p) => ({ permissions: [...p.permissions], ids: p.ids.map((i) => ({ ...i })) }));
  const sorted = <T>(list: readonly T[]) => JSON.stringify(sortedSet(list));
  const t = performance.now();
  let differ = 0;
  pairs.forEach((p, i) => {
    const s = stored[i]!;
    const same =
      c === "compareShortcut"
        ? sameSet(p.permissions, s.permissions) && sameIdentifiers(p.ids, s.ids)
        : sorted(p.permissions) === sorted(s.permissions) &&
          JSON.stringify(normalizeIdentifiers(p.ids)) === JSON.stringify(normalizeIdentifiers(s.ids));
    if (!same) differ++;
  });
  if (differ) throw new Error("rosterSteps: unchanged people compared as changed");
  return performance.now() - t;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs each case `samples` times, alternated, each in a fresh process of this module. */
export function benchRosterSteps(opts: { people?: number; samples?: number; log?: (line: string) => void } = {}): RosterStepsResult {
  const people = opts.people ?? 28_007;
  const samples = opts.samples ?? 5;
  const times = new Map<Case, number[]>(CASES.map((c) => [c, []]));
  for (let s = 0; s < samples; s++) {
    for (const c of CASES) {
      const out = execFileSync(process.execPath, [__filename, c, String(people)], { encoding: "utf8" });
      times.get(c)!.push(Number(out.trim()));
    }
    opts.log?.(`roster steps: sample ${s + 1} of ${samples}`);
  }
  const m = (c: Case) => median(times.get(c)!);
  return {
    people,
    samples,
    steps: [
      {
        step: "inputs' parse, zod's compiled fast path",
        baseline: "zod's runtime parser",
        ms: m("parseCompiled"),
        baselineMs: m("parseRuntime"),
      },
      {
        step: "unchanged people's permissions and identifiers compared (sameSet, sameIdentifiers)",
        baseline: "both sides sorted to compare (their rule before the shortcut)",
        ms: m("compareShortcut"),
        baselineMs: m("compareSorted"),
      },
    ],
  };
}

/** The result as Markdown. */
export function rosterStepsMarkdown(r: RosterStepsResult): string {
  return [
    `### Roster steps at ${r.people.toLocaleString("en-US")} people, cold`,
    "",
    `Each figure the median of ${r.samples} fresh processes, alternated with its baseline in the same run (bench/rosterSteps.ts).`,
    "",
    "| step | ms | baseline | ms |",
    "|---|---:|---|---:|",
    ...r.steps.map((s) => `| ${s.step} | ${s.ms.toFixed(0)} | ${s.baseline} | ${s.baselineMs.toFixed(0)} |`),
  ].join("\n");
}

/** The result as terminal text. */
export function rosterStepsText(r: RosterStepsResult): string {
  return [
    `Roster steps at ${r.people} people (median of ${r.samples} fresh processes each):`,
    ...r.steps.map((s) => `  ${s.step}: ${s.ms.toFixed(0)} ms (baseline, ${s.baseline}: ${s.baselineMs.toFixed(0)} ms)`),
  ].join("\n");
}

// A sample: `node rosterSteps.js <case> <people>` prints its milliseconds.
if (require.main === module) {
  const [c, people] = process.argv.slice(2) as [Case, string];
  if (!CASES.includes(c)) throw new Error(`rosterSteps: unknown case '${c}'`);
  process.stdout.write(`${runCase(c, Number(people))}\n`);
}
