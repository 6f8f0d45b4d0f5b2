#!/usr/bin/env node
/**
 * `pulumi-reviewadmin`: the tools users run outside a Pulumi program. One subcommand per file in
 * this folder, listed in COMMANDS; each has `--help`. Written so that an old Node reaches the
 * version check before anything that needs a new one is loaded.
 */
// command.ts needs nothing beyond Node's own modules, so it loads on any Node; the commands
// (which load undici, zod...) are imported only after the version check.
import { nodeProblem } from "../contract/nodeVersion";
import { closest, helpOf, loadSubcommands, parseOptions, processIo, UsageError, type Command, type Io } from "./command";

/** The subcommands, loaded only when used. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  doctor: {
    summary: "check the API key and base URL: who the key is, what it can manage",
    load: async () => (await import("./doctor.js")).doctor,
  },
  emulator: {
    summary: "run the local emulator of the API (seeded world, keys, control API)",
    load: async () => (await import("./emulator.js")).emulator,
  },
  export: {
    summary: "write a Pulumi project that adopts an organization's live access",
    load: async () => (await import("./export.js")).exportCommand,
  },
  review: {
    summary:
      "write an access review packet (Markdown, CSV, JSON, evidence manifest); apply a reviewer's sign-off; verify a packet and its removals",
    load: async () => (await import("./review.js")).reviewCommand,
  },
  routes: {
    summary: "list the API operations this version uses, or compare them with the vendor's OpenAPI document",
    load: async () => (await import("./routes.js")).routes,
  },
  state: {
    summary:
      "print what a stack declares (each roster and per-person resource, its settings and people) from `pulumi stack export`, offline",
    load: async () => (await import("./state.js")).stateCommand,
  },
};

function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  return (
    [
      "Usage: pulumi-reviewadmin <command> [options]",
      "",
      "Tools for the review platform's administration API, outside a Pulumi program.",
      "",
      "Commands:",
      ...Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`),
      "",
      "Run `pulumi-reviewadmin help <command> [<subcommand>]` (or `<command> --help`) for a command's options and subcommands.",
      "Credentials come from REVIEWADMIN_API_KEY and REVIEWADMIN_BASE_URL unless a command says otherwise.",
    ].join("\n") + "\n"
  );
}

/**
 * The one line for a word that names nothing: "unknown command 'reveiw'; did you mean 'review'?
 * (commands: ...; see pulumi-reviewadmin --help)".
 */
function unknownWord(what: string, word: string, known: readonly string[], helpCommand: string): string {
  const near = closest(word, known);
  return `unknown ${what} '${word}'${near ? `; did you mean '${near}'?` : ""} (${what}s: ${known.join(", ")}; see ${helpCommand} --help)`;
}

/**
 * The command the words name (`review`, `review apply-signoff`) and the arguments left for it; or
 * the one line saying which word names nothing.
 */
async function resolve(words: string[]): Promise<{ cmd: Command; args: string[] } | { error: string }> {
  const [name = "", ...rest] = words;
  // Object.hasOwn: "toString" is no command.
  if (!Object.hasOwn(COMMANDS, name)) {
    if (name.startsWith("-"))
      return { error: `pulumi-reviewadmin: unknown option ${name}; options go after the command (see pulumi-reviewadmin --help)` };
    return { error: `pulumi-reviewadmin: ${unknownWord("command", name, Object.keys(COMMANDS), "pulumi-reviewadmin")}` };
  }
  const cmd = await COMMANDS[name]!.load();
  const word = rest[0];
  // A command with subcommands (review apply-signoff) dispatches on its first word; an option there is the command's own.
  if (!cmd.subcommands || word === undefined || word.startsWith("-")) return { cmd, args: rest };
  if (Object.hasOwn(cmd.subcommands, word)) return { cmd: await cmd.subcommands[word]!(), args: rest.slice(1) };
  if (cmd.positional) return { cmd, args: rest };
  const known = Object.keys(cmd.subcommands);
  return { error: `pulumi-reviewadmin ${cmd.name}: ${unknownWord("subcommand", word, known, `pulumi-reviewadmin ${cmd.name}`)}` };
}

/** A command's --help, its subcommands listed. */
async function helpText(cmd: Command): Promise<string> {
  return helpOf(cmd, await loadSubcommands(cmd));
}

/** Runs the command line `argv` (without node and the script); resolves to the exit code. */
export async function main(argv: string[], io?: Io): Promise<number> {
  const out = io ?? processIo;
  const [name, ...rest] = argv;
  const helpFlag = (w: string | undefined) => w === "-h" || w === "--help";
  if (name === undefined || helpFlag(name) || (name === "help" && (rest.length === 0 || helpFlag(rest[0])))) {
    out.out(overview());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-v") {
    // The version and the build: the commit stamped into dist/, or the checkout's when run from source.
    const { versionText } = await import("../contract/buildInfo.js");
    const { ownPackage } = await import("./packageInfo.js");
    const { toolBuild } = await import("./review/evidence.js");
    out.out(versionText(ownPackage().version, toolBuild()));
    return 0;
  }
  // `help review verify` is `review verify --help`.
  const resolved = await resolve(name === "help" ? rest : argv);
  if ("error" in resolved) {
    out.err(resolved.error);
    return 2;
  }
  const { cmd, args } = resolved;
  if (name === "help") {
    if (args.length > 0) {
      out.err(
        `pulumi-reviewadmin help: unexpected argument '${args[0]}': ${cmd.name} has no subcommand of that name (see pulumi-reviewadmin help ${cmd.name})`,
      );
      return 2;
    }
    out.out(await helpText(cmd));
    return 0;
  }
  try {
    const { help, values } = parseOptions(cmd, args);
    if (help) {
      out.out(await helpText(cmd));
      return 0;
    }
    return await cmd.run(values, out);
  } catch (err) {
    if (err instanceof UsageError) {
      out.err(`pulumi-reviewadmin ${cmd.name}: ${err.message} (see pulumi-reviewadmin ${cmd.name} --help)`);
      return 2;
    }
    out.err(`pulumi-reviewadmin ${cmd.name}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

if (require.main === module) {
  const problem = nodeProblem();
  if (problem) {
    process.stderr.write(problem + "\n");
    process.exit(1);
  }
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    // What escapes main (a command that fails to load) is still one line, not a stack trace.
    (err: unknown) => {
      process.stderr.write(`pulumi-reviewadmin: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
