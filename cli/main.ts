#!/usr/bin/env node
/**
 * `pulumi-reviewadmin`: the tools users run outside a Pulumi program. One subcommand per file in
 * this folder, listed in COMMANDS; each has `--help`. Written so that an old Node reaches the
 * version check before anything that needs a new one is loaded.
 */
// command.ts needs nothing beyond Node's own modules, so it loads on any Node; the commands
// (which load undici, zod...) are imported only after the version check.
import { nodeProblem } from "../contract/nodeVersion";
import { closest, helpOf, parseOptions, processIo, UsageError, type Command, type Io } from "./command";

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
      "Run `pulumi-reviewadmin <command> --help` for a command's options.",
      "Credentials come from REVIEWADMIN_API_KEY and REVIEWADMIN_BASE_URL unless a command says otherwise.",
    ].join("\n") + "\n"
  );
}

/** Runs the command line `argv` (without node and the script); resolves to the exit code. */
export async function main(argv: string[], io?: Io): Promise<number> {
  const out = io ?? processIo;
  const [name, ...rest] = argv;
  if (name === undefined || name === "-h" || name === "--help" || name === "help") {
    out.out(overview());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-v") {
    out.out((require("../../package.json") as { version: string }).version);
    return 0;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    const near = closest(name, Object.keys(COMMANDS));
    out.err(
      `pulumi-reviewadmin: unknown command '${name}'${near ? `; did you mean '${near}'?` : ""}; commands: ${Object.keys(COMMANDS).join(", ")} (see --help)`,
    );
    return 2;
  }
  let cmd = await entry.load();
  let args = rest;
  // A command with subcommands (review apply-signoff) dispatches on its first word.
  const sub = rest[0] !== undefined ? cmd.subcommands?.[rest[0]] : undefined;
  if (sub) {
    cmd = await sub();
    args = rest.slice(1);
  }
  try {
    const { help, values } = parseOptions(cmd, args);
    if (help) {
      out.out(helpOf(cmd));
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
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
