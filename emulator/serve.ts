/**
 * The emulator as a command: its options (each with an environment variable), the banner that
 * says where it listens, the warnings off loopback and the line per request. The command line
 * is `pulumi-reviewadmin emulator` (cli/emulator.ts parses it with util.parseArgs and calls
 * `serve`); this module imports nothing of the project beyond the emulator, so it moves with it.
 *
 * Precedence: a command-line option, then its environment variable, then the default.
 */
import * as os from "node:os";
import {
  DEFAULT_AUTH_FAILURE_LIMIT,
  DEFAULT_RATE_LIMIT,
  isLoopbackAddress,
  startEmulator,
  type EmulatorOptions,
  type RequestRecord,
  type RunningEmulator,
} from "./index";
import { PART_UPLOAD_PREFIX } from "./model/uploadStore";

/** One option of the emulator command: how util.parseArgs reads it, its --help line and its environment variable. */
export interface EmulatorOptionSpec {
  type: "string" | "boolean";
  /** Names the value in --help, e.g. "N". */
  value?: string;
  help: string;
  /** The environment variable read when the option is not on the command line. */
  env: string;
}

/** Every option of the emulator command, by its long name. */
export const EMULATOR_OPTIONS = {
  port: { type: "string", value: "N", env: "REVIEWADMIN_EMULATOR_PORT", help: "port to listen on (default 8080; 0 picks a free one)" },
  host: {
    type: "string",
    value: "ADDRESS",
    env: "REVIEWADMIN_EMULATOR_HOST",
    help: "address to listen on (default 127.0.0.1; 0.0.0.0: every interface, e.g. in a container)",
  },
  state: {
    type: "string",
    value: "FILE",
    env: "REVIEWADMIN_EMULATOR_STATE",
    help: "load the world from FILE if it exists; save it there on every change and at exit",
  },
  seed: { type: "string", value: "N|empty", env: "REVIEWADMIN_EMULATOR_SEED", help: "seed of the world (default 1), or an empty world" },
  "rate-limit": {
    type: "string",
    value: "N",
    env: "REVIEWADMIN_EMULATOR_RATE_LIMIT",
    help: `requests per second per account (default ${DEFAULT_RATE_LIMIT}, the service's; 0: no limit)`,
  },
  "auth-failure-limit": {
    type: "string",
    value: "N",
    env: "REVIEWADMIN_EMULATOR_AUTH_FAILURE_LIMIT",
    help: `failed authentications per second per address (default ${DEFAULT_AUTH_FAILURE_LIMIT}; 0: no limit)`,
  },
  members: { type: "string", value: "N", env: "REVIEWADMIN_EMULATOR_MEMBERS", help: "add N synthetic members to Northwind Legal (102)" },
  databases: { type: "string", value: "N", env: "REVIEWADMIN_EMULATOR_DATABASES", help: "add N synthetic databases to Northwind Legal" },
  "users-per-database": {
    type: "string",
    value: "N",
    env: "REVIEWADMIN_EMULATOR_USERS_PER_DATABASE",
    help: "new members with DB_UPLOAD on each synthetic database",
  },
  "control-token": {
    type: "string",
    value: "TOKEN",
    env: "REVIEWADMIN_EMULATOR_CONTROL_TOKEN",
    help: "the control API's token, sent as header X-Emulator-Token (default: none on loopback, else random)",
  },
  openapi: {
    type: "string",
    value: "FILE",
    env: "REVIEWADMIN_EMULATOR_OPENAPI",
    help: "serve each operation on the method and path of this OpenAPI 3.x document (JSON or YAML), as the provider does with reviewadmin:openapi",
  },
  quiet: { type: "boolean", env: "REVIEWADMIN_EMULATOR_QUIET", help: "no log line per request (the variable: 1 or true)" },
} as const satisfies Record<string, EmulatorOptionSpec>;

/** Values as util.parseArgs gives them, by long option name. */
export type OptionValues = Record<string, string | boolean | string[] | undefined>;

/** Paragraphs of the command's --help before its options. */
export const DESCRIPTION = `
Runs a local emulator of the review platform's administration API until Ctrl-C: every operation
of the contract, with a seeded world (organizations, people with every role, databases, projects,
invitations), ready API keys for each role, rate limits, billing, an activity log and uploads.
The control API under /_emulator resets the world, mints keys, moves the clock, injects faults
and reads the request log; docs/emulator.md in the package describes both. With --openapi FILE it serves every
operation on the method and path of the vendor's OpenAPI document (the package's docs/openapi.md), as the
provider sends them when configured with the same document (reviewadmin:openapi).

Each option can also be set by the environment variable in brackets; the command line wins.`;

/** Examples shown at the end of the command's --help. */
export const EXAMPLES = [
  "npx --no-install pulumi-reviewadmin emulator",
  "npx --no-install pulumi-reviewadmin emulator --port=9000 --state .emulator.json",
  "npx --no-install pulumi-reviewadmin emulator --openapi vendor-openapi.yaml",
  "REVIEWADMIN_EMULATOR_HOST=0.0.0.0 REVIEWADMIN_EMULATOR_CONTROL_TOKEN=ci-token npx --no-install pulumi-reviewadmin emulator --quiet",
];

/** A bad option or environment variable; the message names it. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** What the command runs: the emulator's options and whether to log each request. */
export interface CommandSettings {
  options: EmulatorOptions;
  /** No line per request. */
  quiet: boolean;
  /** Where the control token came from, when one was given (for the banner, which does not repeat it). */
  controlTokenFrom?: string;
}

/** Output of the command; cli/command.ts's Io has this shape. */
export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

type Name = keyof typeof EMULATOR_OPTIONS;

/** The value of an option from the command line, else its environment variable, and where it came from. */
function lookup(name: Name, values: OptionValues, env: NodeJS.ProcessEnv): { value: string | boolean; from: string } | undefined {
  const given = values[name];
  if (given !== undefined && !Array.isArray(given)) return { value: given, from: `--${name}` };
  const variable = EMULATOR_OPTIONS[name].env;
  const text = env[variable];
  return text === undefined || text === "" ? undefined : { value: text, from: variable };
}

function wholeNumber(from: string, value: string | boolean, max = Number.MAX_SAFE_INTEGER): number {
  const text = String(value);
  if (!/^[0-9]+$/.test(text) || Number(text) > max)
    throw new UsageError(`${from} takes a whole number${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ""}, got '${text}'`);
  return Number(text);
}

function flag(from: string, value: string | boolean): boolean {
  if (typeof value === "boolean") return value;
  const text = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(text)) return true;
  if (["0", "false", "no", "off"].includes(text)) return false;
  throw new UsageError(`${from} takes 1/true or 0/false, got '${value}'`);
}

/** Reads the options (command line, then environment, then defaults); throws UsageError naming a bad one. */
export function resolveSettings(values: OptionValues, env: NodeJS.ProcessEnv = process.env): CommandSettings {
  const options: EmulatorOptions = { port: 8080, scale: {} };
  const settings: CommandSettings = { options, quiet: false };
  const read = <T>(name: Name, parse: (from: string, value: string | boolean) => T, apply: (v: T) => void) => {
    const found = lookup(name, values, env);
    if (found) apply(parse(found.from, found.value));
  };
  const text = (_from: string, value: string | boolean) => String(value);
  read(
    "port",
    (from, v) => wholeNumber(from, v, 65535),
    (v) => (options.port = v),
  );
  read("host", text, (v) => (options.host = v));
  read("state", text, (v) => (options.stateFile = v));
  read("openapi", text, (v) => (options.openapi = v));
  read(
    "seed",
    (from, v) => (v === "empty" ? ("empty" as const) : wholeNumber(from, v)),
    (v) => (options.seed = v),
  );
  read("rate-limit", wholeNumber, (v) => (options.rateLimit = v));
  read("auth-failure-limit", wholeNumber, (v) => (options.authFailureLimit = v));
  read("members", wholeNumber, (v) => (options.scale!.members = v));
  read("databases", wholeNumber, (v) => (options.scale!.databases = v));
  read("users-per-database", wholeNumber, (v) => (options.scale!.usersPerDatabase = v));
  read("quiet", flag, (v) => (settings.quiet = v));
  const token = lookup("control-token", values, env);
  if (token) {
    if (typeof token.value !== "string" || token.value.length < 8)
      throw new UsageError(`${token.from} takes a token of at least 8 characters`);
    options.controlToken = token.value;
    settings.controlTokenFrom = token.from;
  }
  return settings;
}

/** Where an emulator listening on every interface can be reached from elsewhere: the host name and the machine's external addresses. */
function externalUrls(port: number): string[] {
  const addresses = Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => a !== undefined && !a.internal && a.family === "IPv4")
    .map((a) => a.address);
  return [os.hostname(), ...addresses].map((h) => `http://${h}:${port}`);
}

/** True when the emulator listens on every interface (0.0.0.0 or ::). */
function listensEverywhere(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

/** The startup banner: where it listens and how to reach it, the control API and its token, the state, and the keys. */
export function banner(emu: RunningEmulator, settings: CommandSettings): string {
  const loopback = isLoopbackAddress(emu.host);
  const everywhere = listensEverywhere(emu.host);
  const reach = loopback
    ? "loopback: this machine only"
    : everywhere
      ? "every interface: other machines and containers can reach it"
      : "reachable from other machines";
  const lines = [`Review admin API emulator listening on ${emu.host}:${emu.port} (${reach})`];
  if (everywhere) {
    lines.push(`  API base URL:  ${emu.url} here; from elsewhere ${externalUrls(emu.port).join(", ")}`);
  } else {
    lines.push(`  API base URL:  ${emu.url}   (paths start with ${emu.routes.prefix || "/"}; send Authorization: Bearer <key>)`);
  }
  if (emu.controlToken === undefined) {
    lines.push(`  Control API:   ${emu.url}/_emulator   (GET it for the list; open on loopback, no token)`);
  } else {
    lines.push(`  Control API:   ${emu.url}/_emulator   (send the header X-Emulator-Token: <control token>)`);
    lines.push(
      settings.controlTokenFrom
        ? `  Control token: as given by ${settings.controlTokenFrom}`
        : `  Control token: ${emu.controlToken}   (made for this run; choose one with --control-token or REVIEWADMIN_EMULATOR_CONTROL_TOKEN)`,
    );
  }
  lines.push(`  Health:        ${emu.url}/_emulator/health   (no token)`);
  if (settings.options.openapi !== undefined) {
    lines.push(`  Routes:        from ${settings.options.openapi} (the provider needs the same document: reviewadmin:openapi)`);
  }
  lines.push(
    settings.options.stateFile
      ? `  State file:    ${settings.options.stateFile}`
      : `  State:         in memory (use --state FILE to keep it)`,
  );
  if (!loopback) {
    lines.push(`  Provider:      plain http off loopback is refused unless named: REVIEWADMIN_INSECURE_HTTP_HOSTS=<this host's name>`);
  }
  lines.push(`Keys (test keys of the seeded world; the package's docs/emulator.md says whom each acts as):`);
  lines.push(...Object.entries(emu.keys).map(([name, key]) => `  ${name.padEnd(16)} ${key}`));
  lines.push(settings.quiet ? `Press Ctrl-C to stop.` : `Press Ctrl-C to stop. One line per request follows (--quiet for none).`);
  return lines.join("\n") + "\n";
}

/** Warnings for stderr: off loopback, who can use the API and that the control API needs its token. */
export function warnings(emu: RunningEmulator): string[] {
  if (isLoopbackAddress(emu.host)) return [];
  return [
    `emulator: warning: listening on ${emu.host}, not loopback: anyone who can reach port ${emu.port} can call the API with the keys printed below, over plain http (test data only).`,
    `emulator: warning: the control API (which hands out every key) answers only requests with the header X-Emulator-Token: <control token>.`,
  ];
}

/** Part URLs carry their credential in the path: show only its start. */
function shownPath(path: string): string {
  if (!path.startsWith(PART_UPLOAD_PREFIX)) return path;
  return `${path.slice(0, PART_UPLOAD_PREFIX.length + 8)}...`;
}

/** One log line for a finished request: time, method, path, status (or "-" when no answer was sent), milliseconds. */
export function logLine(entry: RequestRecord, now = new Date()): string {
  const time = now.toISOString().slice(11, 23);
  const status = entry.status === 0 ? "- (no answer)" : String(entry.status);
  return `${time} ${entry.method} ${shownPath(entry.path)} ${status} ${entry.durationMs}ms`;
}

/**
 * Starts the emulator as the command does: reads the settings, prints the warnings (to err) and
 * the banner (to out), and a line per request unless quiet. Resolves to the running emulator;
 * throws UsageError for a bad option, and an Error saying so when the port is taken.
 */
export async function startFromCommandLine(
  values: OptionValues,
  io: Output,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningEmulator> {
  const settings = resolveSettings(values, env);
  const options: EmulatorOptions = { ...settings.options, onRequest: settings.quiet ? undefined : (entry) => io.out(logLine(entry)) };
  let emu: RunningEmulator;
  try {
    emu = await startEmulator(options);
  } catch (err) {
    if ((err as { code?: unknown }).code === "EADDRINUSE") {
      const where = `${options.host ?? "127.0.0.1"}:${options.port}`;
      throw new Error(
        `${where} is in use (another emulator?): choose another port with --port or REVIEWADMIN_EMULATOR_PORT (0 picks a free one)`,
        { cause: err },
      );
    }
    throw err;
  }
  for (const line of warnings(emu)) io.err(line);
  io.out(banner(emu, settings));
  return emu;
}

/** Runs the command until SIGINT or SIGTERM, then closes the emulator (saving its state file); resolves to the exit code. */
export async function serve(values: OptionValues, io: Output, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const emu = await startFromCommandLine(values, io, env);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await emu.close();
  return 0;
}
