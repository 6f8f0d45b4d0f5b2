/**
 * Every fenced block of README.md is run by test/engine/readme.test.ts or listed with why it is not
 * (test/support/readmeBlocks.ts), and what it names exists as named: every relative link points to a file that exists (and its
 * #anchor to a heading there), every `pulumi-reviewadmin` command and flag it shows is in that
 * command's --help, every `pulumi` command and flag in the Pulumi CLI's (when the CLI is here),
 * every `npm run` script in package.json, and every version in a command is package.json's.
 * test/engine/readme.test.ts runs the blocks themselves.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { noEngine } from "../support/engine";
import {
  codeSpans,
  commandPart,
  fencedBlocks,
  headingSlugs,
  identifies,
  prose,
  readmeText,
  relativeLinks,
  repoRoot,
} from "../support/readme";
import { NOT_RUN, PROGRAMS, SCRIPT, STORIES } from "../support/readmeBlocks";
import { runCli } from "./runCli";

const readme = readmeText();
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  version: string;
  scripts: Record<string, string>;
};

/** A command of one of the tools the README shows: `pulumi-reviewadmin`, `pulumi` or the benchmarks' `npm run bench --`. */
interface Command {
  tool: "pulumi-reviewadmin" | "pulumi" | "bench";
  /** Its words after the tool ("review apply-signoff", "config set"), none for bench. */
  words: string[];
}

/**
 * The commands a flag written on its own (`--org`) belongs to, per "## " section: one of them must
 * have it. A section that shows a lone flag and is not here fails the test: say whose flag it is.
 */
const SECTION_COMMANDS: Record<string, Command[]> = {
  "Onboarding an existing organization": [{ tool: "pulumi-reviewadmin", words: ["export"] }],
  "Periodic access reviews": [
    { tool: "pulumi-reviewadmin", words: ["review"] },
    { tool: "pulumi-reviewadmin", words: ["review", "apply-signoff"] },
  ],
  Configuration: [{ tool: "pulumi-reviewadmin", words: ["doctor"] }],
  "The emulator": [{ tool: "pulumi-reviewadmin", words: ["emulator"] }],
  "Pointing it at the real service": [{ tool: "pulumi-reviewadmin", words: ["routes"] }],
  Resources: ["up", "preview", "refresh", "destroy"].map((verb) => ({ tool: "pulumi", words: [verb] })),
  Benchmarks: [
    { tool: "bench", words: [] },
    { tool: "pulumi", words: ["up"] },
  ],
};

const SUBCOMMANDS = ["doctor", "emulator", "export", "review", "routes"];
const PULUMI_VERBS = ["preview", "up", "refresh", "destroy"];

/** A claim of the README: one of `candidates` exists and has every flag of `flags`. */
interface Claim {
  where: string;
  candidates: Command[];
  flags: string[];
}

/** The simple commands of a command line (split at `&&`, `||`, `|` and `;`), leading `VAR=value`s dropped. */
function segments(text: string): string[][] {
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

/** What one simple command of the README claims, if it is one of the tools'. */
function claimOf(words: string[], section: string, where: string): Claim | undefined {
  const at = words.indexOf("pulumi-reviewadmin");
  const ours = at >= 0 ? words.slice(at + 1) : SUBCOMMANDS.includes(words[0]!) ? words : undefined;
  if (ours && ours.length > 0) {
    const sub = ours[0] === "review" && ours[1] === "apply-signoff" ? ours.slice(0, 2) : ours.slice(0, 1);
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

/** Every command line the README shows: its shell lines (comments dropped) and its code spans. */
function commandLines(): { section: string; text: string; where: string }[] {
  const fromBlocks = fencedBlocks(readme)
    .filter((b) => b.lang === "sh")
    .flatMap((b) => b.lines.map((l, i) => ({ section: b.section, text: commandPart(l), where: `README line ${b.line + 1 + i}` })));
  const fromSpans = prose(readme)
    .split(/^## /m)
    .flatMap((part) => {
      const section = part.split("\n")[0]!.trim();
      return codeSpans(part).map((text) => ({ section, text, where: `\`${text}\` in "${section}"` }));
    });
  return [...fromBlocks, ...fromSpans];
}

/** Every claim of the README's command lines. */
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

describe("README.md's blocks", () => {
  it("each is run by test/engine/readme.test.ts, or listed with the reason it is not", () => {
    const blocks = fencedBlocks(readme);
    const keys = [...PROGRAMS.map((p) => p.block), ...Object.values(STORIES).map((s) => s.block), SCRIPT.block, ...Object.keys(NOT_RUN)];
    const unlisted = blocks
      .filter((b) => !keys.some((k) => identifies(b, k)))
      .map(
        (b) =>
          `README block at line ${b.line} (\`\`\`${b.lang}, "${b.lines[0]}") is not run: add it to PROGRAMS, STORIES, SCRIPT or NOT_RUN in test/support/readmeBlocks.ts (or, if it is there, update the line that names it)`,
      );
    expect(unlisted).toEqual([]);
    // ...and each entry names exactly one block.
    const stale = keys.map((k) => ({ k, n: blocks.filter((b) => identifies(b, k)).length })).filter(({ n }) => n !== 1);
    expect(stale.map(({ k, n }) => `${n} README blocks have the line ${JSON.stringify(k)}`)).toEqual([]);
    expect(blocks.length).toBe(keys.length);
  });
});

describe("README.md names what exists", () => {
  it("every relative link points to a file that exists, and its anchor to a heading there", () => {
    const links = relativeLinks(readme);
    expect(links.length).toBeGreaterThan(10);
    const broken: string[] = [];
    for (const { target, file, anchor } of links) {
      const where = file === "" ? path.join(repoRoot, "README.md") : path.join(repoRoot, file);
      if (!fs.existsSync(where)) broken.push(`${target}: no such file`);
      else if (anchor && where.endsWith(".md") && !headingSlugs(fs.readFileSync(where, "utf8")).has(anchor))
        broken.push(`${target}: no heading with the anchor #${anchor} in ${file || "README.md"}`);
    }
    expect(broken).toEqual([]);
  });

  it("every command and flag it shows is in that command's --help (pulumi's when the CLI is here)", async () => {
    const all = claims();
    const helps = new Map<string, Promise<string | undefined>>();
    const help = (c: Command) => {
      const key = `${c.tool} ${c.words.join(" ")}`;
      if (!helps.has(key)) helps.set(key, helpOf(c));
      return helps.get(key)!;
    };
    const wrong: string[] = [];
    let checked = 0;
    for (const claim of all) {
      if (claim.candidates.length === 0) {
        wrong.push(`${claim.where}: a flag on its own in a section not in SECTION_COMMANDS: say whose flag it is`);
        continue;
      }
      // Without the Pulumi CLI here, claims only pulumi can answer are left to CI (which has it).
      const askable = claim.candidates.filter((c) => c.tool !== "pulumi" || !noEngine);
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
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  it("every npm run script and .ci script it names exists", () => {
    const missing: string[] = [];
    for (const { text } of commandLines())
      for (const words of segments(text)) {
        if (words[0] === "npm" && words[1] === "run" && words[2] && !(words[2] in pkg.scripts)) missing.push(`npm run ${words[2]}`);
        if (words[0] === "bash" && words[1] && !fs.existsSync(path.join(repoRoot, words[1]))) missing.push(words.join(" "));
      }
    expect(missing).toEqual([]);
  });

  it("every version in a command is package.json's", () => {
    const versions = [...readme.matchAll(/pulumi-reviewadmin-(\d+\.\d+\.\d+)\.tgz|#v(\d+\.\d+\.\d+)/g)].map((m) => m[1] ?? m[2]);
    expect(versions.length).toBeGreaterThan(0);
    expect(versions.filter((v) => v !== pkg.version)).toEqual([]);
  });
});
