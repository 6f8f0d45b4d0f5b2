/**
 * What every subcommand of `pulumi-reviewadmin` shares: its description for `--help`, option
 * parsing with Node's util.parseArgs, and the one-line usage error.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** Output streams of a command; tests pass their own. */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** The process's streams. */
export const processIo: Io = {
  out: (t) => void process.stdout.write(t.endsWith("\n") ? t : t + "\n"),
  err: (t) => void process.stderr.write(t.endsWith("\n") ? t : t + "\n"),
};

/** One option of a command, for parsing and for `--help`. */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** One line for `--help`; `<value>` names the argument. */
  help: string;
  /** Shown in help, e.g. "FILE". */
  value?: string;
}

/** A subcommand: `pulumi-reviewadmin <name> [options]`. */
export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Paragraphs after the usage line of `--help`. */
  description: string;
  options: Record<string, OptionSpec>;
  /** The one argument the command takes after its options (`review verify FOLDER`), given to run as `positional`; none when absent. */
  positional?: { name: string; help: string };
  /** Examples shown at the end of `--help`. */
  examples?: string[];
  /** Subcommands by their word (`review apply-signoff`), each a command of its own with its own --help. */
  subcommands?: Record<string, () => Promise<Command>>;
  /** Runs with parsed options; resolves to the exit code. */
  run(options: Record<string, string | boolean | string[] | undefined>, io: Io): Promise<number>;
}

/** A mistake in how the command was called: printed as one line with a pointer to --help, exit 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/**
 * The `--help` text of a command; `subcommands` (by their word, from loadSubcommands) are listed
 * with their summaries, so that `review --help` names `review verify-remediation`.
 */
export function helpOf(cmd: Command, subcommands: Record<string, Command> = {}): string {
  const width = Math.max(...Object.entries(cmd.options).map(([n, o]) => optionLabel(n, o).length), 10);
  const usage = `Usage: pulumi-reviewadmin ${cmd.name} [options]${cmd.positional ? ` ${cmd.positional.name}` : ""}`;
  const words = Object.keys(subcommands);
  const lines = [
    usage,
    ...(words.length ? [`       pulumi-reviewadmin ${cmd.name} <subcommand> [options]`] : []),
    "",
    cmd.description.trim(),
  ];
  if (words.length) {
    const w = Math.max(...words.map((n) => n.length));
    lines.push(
      "",
      "Subcommands:",
      ...words.map((n) => `  ${n.padEnd(w)}  ${subcommands[n]!.summary}`),
      `Run \`pulumi-reviewadmin help ${cmd.name} <subcommand>\` (or \`${cmd.name} <subcommand> --help\`) for a subcommand's options.`,
    );
  }
  lines.push(
    "",
    "Options:",
    ...(cmd.positional ? [`  ${cmd.positional.name.padEnd(width)}  ${cmd.positional.help}`] : []),
    ...Object.entries(cmd.options).map(([n, o]) => `  ${optionLabel(n, o).padEnd(width)}  ${o.help}`),
    `  ${"-h, --help".padEnd(width)}  show this help`,
  );
  if (cmd.examples?.length) lines.push("", "Examples:", ...cmd.examples.map((e) => `  ${e}`));
  return lines.join("\n") + "\n";
}

/** A command's subcommands, loaded, by their word (none for a command without). */
export async function loadSubcommands(cmd: Command): Promise<Record<string, Command>> {
  const entries = Object.entries(cmd.subcommands ?? {});
  return Object.fromEntries(await Promise.all(entries.map(async ([word, load]) => [word, await load()] as const)));
}

function optionLabel(name: string, o: OptionSpec): string {
  const flag = `${o.short ? `-${o.short}, ` : "    "}--${name}`;
  return o.type === "string" ? `${flag} ${o.value ?? "VALUE"}` : flag;
}

/** Parses `argv` for `cmd`; unknown options and missing values are UsageErrors. `help` is true for -h/--help. */
export function parseOptions(
  cmd: Command,
  argv: string[],
): { help: boolean; values: Record<string, string | boolean | string[] | undefined> } {
  const options: ParseArgsConfig["options"] = { help: { type: "boolean", short: "h" } };
  for (const [name, o] of Object.entries(cmd.options)) {
    options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  }
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    const taken = cmd.positional ? 1 : 0;
    if (positionals.length > taken) throw new UsageError(`unexpected argument '${positionals[taken]}'`);
    const { help, ...rest } = values as Record<string, string | boolean | string[] | undefined>;
    return { help: help === true, values: cmd.positional && positionals[0] !== undefined ? { ...rest, positional: positionals[0] } : rest };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // parseArgs words its other errors well ("Option '--out <value>' argument missing"); keep them, on one line.
    const message = (err as Error).message.replace(/\s+/g, " ").replace(/\. To specify a positional argument.*$/, "");
    const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
    if (unknown === undefined) throw new UsageError(message);
    const near = unknown.startsWith("--") ? closest(unknown.slice(2), [...Object.keys(cmd.options), "help"]) : undefined;
    throw new UsageError(`unknown option ${unknown}${near ? `; did you mean --${near}?` : ""}`);
  }
}

/** `n` and the noun for it, the number grouped as in en-US: "1 organization", "2 organizations", "1,200 people". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/**
 * The candidate nearest `word` (at most a third of its letters changed), for a did-you-mean;
 * undefined when none is near. The distance counts a swap of two neighbours as one edit
 * ("reveiw", "--hepl"): the commonest slip of typing.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const distance = (a: string, b: string) => {
    // d[i][j]: edits from a's first i letters to b's first j (Levenshtein, plus adjacent swaps).
    const d = Array.from({ length: a.length + 1 }, (_, i) =>
      Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
    );
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++) {
        d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    return d[a.length]![b.length]!;
  };
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d <= Math.max(1, Math.floor(word.length / 3)) && (!best || d < best.d)) best = { c, d };
  }
  return best?.c;
}

/** A string option as a positive integer, or a UsageError naming the option. */
export function positiveInt(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer, got '${String(value)}'`);
  return n;
}

/** A time option: ISO 8601 or unix milliseconds, or a UsageError naming the option. */
export function timeOption(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(ms) || ms <= 0)
    throw new UsageError(`--${name} must be an ISO 8601 time (2026-11-25T00:00:00Z) or unix milliseconds, got '${text}'`);
  return ms;
}
