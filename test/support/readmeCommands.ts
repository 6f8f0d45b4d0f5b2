/**
 * The commands README.md and the other RUN_DOCS show, as claims that a tool has a command and its
 * flags: every `pulumi-reviewadmin` command and flag of their shell blocks and code spans, every
 * `pulumi` one, and the benchmarks' `npm run bench --` flags, each checked against the tool's --help. The
 * in-process command's claims are test/cli/readme.test.ts's; those of the Pulumi CLI and of the
 * compiled benchmarks (dist/bench) are test/engine/readmeCommands.test.ts's.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { runCli } from "../cli/runCli";
import { codeSpans, commandPart, docText, fencedBlocks, prose, repoRoot, RUN_DOCS } from "./readme";

/** A command of one of the tools the docs show: `pulumi-reviewadmin`, `pulumi` or the benchmarks' `npm run bench --`. */
export interface Command {
  tool: "pulumi-reviewadmin" | "pulumi" | "bench";
  /** Its words after the tool ("review apply-signoff", "config set"), none for bench. */
  words: string[];
}

/**
 * The commands a flag written on its own (`--org`) belongs to, per "## " section: one of them must
 * have it. A section that shows a lone flag and is not here fails the test: say whose flag it is.
 */
const PULUMI_RUNS: Command[] = ["up", "preview", "refresh", "destroy"].map((verb) => ({ tool: "pulumi", words: [verb] }));
const REVIEW: Command[] = [
  { tool: "pulumi-reviewadmin", words: ["review"] },
  { tool: "pulumi-reviewadmin", words: ["review", "apply-signoff"] },
];
const SECTION_COMMANDS: Record<string, Command[]> = {
  "Start from what exists": [{ tool: "pulumi-reviewadmin", words: ["export"] }],
  "What it writes": [{ tool: "pulumi-reviewadmin", words: ["export"] }],
  "Other faces and sources": [{ tool: "pulumi-reviewadmin", words: ["export"] }],
  "The packet": REVIEW,
  "Applying the sign-off": REVIEW,
  "Evidence and verification": REVIEW,
  "Rosters: OrganizationMembers and DatabaseUsers": PULUMI_RUNS,
  "Check the setup: the doctor": [{ tool: "pulumi-reviewadmin", words: ["doctor"] }],
  "Rotating the API key": PULUMI_RUNS,
  "Pointing it at the real service": [{ tool: "pulumi-reviewadmin", words: ["routes"] }],
  "Rules every resource follows": PULUMI_RUNS,
  "Running them": [
    { tool: "bench", words: [] },
    { tool: "pulumi", words: ["up"] },
  ],
  "Scale: 2,000 members, 50 databases × 40 users": [{ tool: "pulumi", words: ["up"] }],
};

const SUBCOMMANDS = ["doctor", "emulator", "export", "review", "routes", "state"];
/** review's subcommands, whose flags are their own (`review reconcile --plan`). */
const REVIEW_SUBCOMMANDS = ["apply-signoff", "walls", "verify", "verify-remediation", "reconcile"];
const PULUMI_VERBS = ["preview", "up", "refresh", "destroy"];

/** A claim of the README: one of `candidates` exists and has every flag of `flags`. */
interface Claim {
  where: string;
  candidates: Command[];
  flags: string[];
}

/** The simple commands of a command line (split at `&&`, `||`, `|` and `;`), leading `VAR=value`s dropped. */
export function segments(text: string): string[][] {
  return text
    .split(/&&|\|\||\||;/)
    .map((s) => s.trim().split(/\s+/).filter(Boolean))
    .map((words) =>
      words.slice(
        Math.max(
          0,
          words.findIndex((w) => !/^[A-Z_]+=/.test(w)),
        ),
      ),
    )
    .filter((w) => w.length > 0);
}

const flagsOf = (words: string[]) => words.filter((w) => /^--[a-z]/.test(w)).map((w) => w.split("=")[0]!);
const commandWords = (words: string[]) =>
  words
    .slice(
      0,
      Math.max(
        0,
        words.findIndex((w) => !/^[a-z][a-z-]*$/.test(w)),
      ),
    )
    .slice(0, 3);

/** What one simple command of the docs claims, if it is one of the tools'. */
function claimOf(words: string[], section: string, where: string): Claim | undefined {
  const at = words.indexOf("pulumi-reviewadmin");
  const ours = at >= 0 ? words.slice(at + 1) : SUBCOMMANDS.includes(words[0]!) ? words : undefined;
  if (ours && ours.length > 0) {
    const twoWords = (ours[0] === "review" && REVIEW_SUBCOMMANDS.includes(ours[1]!)) || (ours[0] === "state" && ours[1] === "show");
    const sub = twoWords ? ours.slice(0, 2) : ours.slice(0, 1);
    return { where, candidates: [{ tool: "pulumi-reviewadmin", words: sub }], flags: flagsOf(ours) };
  }
  const engine = words[0] === "pulumi" ? words.slice(1) : PULUMI_VERBS.includes(words[0]!) ? words : undefined;
  // `pulumi` alone names the tool, not a command.
  if (engine && engine.length > 0)
    return { where, candidates: [{ tool: "pulumi", words: commandWords([...engine, "--"]) }], flags: flagsOf(engine) };
  if (words[0] === "npm" && words[1] === "run" && words[2] === "bench")
    return { where, candidates: [{ tool: "bench", words: [] }], flags: flagsOf(words) };
  if (words[0]!.startsWith("--")) return { where, candidates: SECTION_COMMANDS[section] ?? [], flags: flagsOf(words) };
  return undefined;
}

/** Every command line the RUN_DOCS show: their shell lines (comments dropped) and their code spans. */
export function commandLines(): { section: string; text: string; where: string }[] {
  return RUN_DOCS.flatMap((file) => {
    const fromBlocks = fencedBlocks(docText(file), file)
      .filter((b) => b.lang === "sh")
      .flatMap((b) => b.lines.map((l, i) => ({ section: b.section, text: commandPart(l), where: `${file} line ${b.line + 1 + i}` })));
    const fromSpans = prose(docText(file))
      .split(/^## /m)
      .flatMap((part) => {
        const section = part.split("\n")[0]!.trim();
        return codeSpans(part).map((text) => ({ section, text, where: `\`${text}\` in ${file}, "${section}"` }));
      });
    return [...fromBlocks, ...fromSpans];
  });
}

/** Every claim of the docs' command lines. */
function claims(): Claim[] {
  return commandLines().flatMap(({ section, text, where }) => segments(text).flatMap((words) => claimOf(words, section, where) ?? []));
}

/** A command's --help text, or undefined when the tool does not have the command. */
async function helpOf(c: Command): Promise<string | undefined> {
  if (c.tool === "pulumi-reviewadmin") {
    const r = await runCli([...c.words, "--help"]);
    return r.code === 0 ? r.out : undefined;
  }
  if (c.tool === "bench") {
    const r = spawnSync(process.execPath, [path.join(repoRoot, "dist/bench/index.js"), "--help"], { encoding: "utf8" });
    return r.status === 0 ? r.stdout : undefined;
  }
  // For an unknown command Pulumi prints the help of the group above it (the root's for an
  // unknown verb): a group's help lists its commands, and its usage line names fewer words.
  const r = spawnSync("pulumi", [...c.words, "--help"], { encoding: "utf8" });
  const usage = (/Usage:\s*\n\s*pulumi((?: [a-z][a-z-]*)*)/.exec(r.stdout)?.[1] ?? "").trim().split(" ").filter(Boolean);
  const group = r.stdout.includes("Available Commands:");
  return usage.length > 0 && !(group && c.words.length > usage.length) ? r.stdout : undefined;
}

/** The claims of the docs about `tools` that their --help does not bear out, and how many were checked. */
export async function wrongClaims(tools: Command["tool"][]): Promise<{ wrong: string[]; checked: number }> {
  const helps = new Map<string, Promise<string | undefined>>();
  const help = (c: Command) => {
    const key = `${c.tool} ${c.words.join(" ")}`;
    if (!helps.has(key)) helps.set(key, helpOf(c));
    return helps.get(key)!;
  };
  const wrong: string[] = [];
  let checked = 0;
  for (const claim of claims()) {
    if (claim.candidates.length === 0) {
      wrong.push(`${claim.where}: a flag on its own in a section not in SECTION_COMMANDS: say whose flag it is`);
      continue;
    }
    // Claims about the other tier's tools are its own to check.
    const askable = claim.candidates.filter((c) => tools.includes(c.tool));
    if (askable.length === 0) continue;
    const texts = await Promise.all(askable.map(help));
    const has = (t: string | undefined, f: string) => t !== undefined && (f === "--help" || new RegExp(`${f}(?![a-z-])`).test(t));
    const names = askable.map((c) => `${c.tool} ${c.words.join(" ")}`.trim()).join(" / ");
    if (texts.every((t) => t === undefined)) wrong.push(`${claim.where}: ${names} is not a command`);
    else if (!texts.some((t) => claim.flags.every((f) => has(t, f))) && askable.length === claim.candidates.length)
      wrong.push(
        `${claim.where}: ${names} has no ${claim.flags.filter((f) => !texts.some((t) => has(t, f))).join(", ") || claim.flags.join(" with ")}`,
      );
    checked++;
  }
  return { wrong, checked };
}
