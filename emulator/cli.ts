#!/usr/bin/env node
/**
 * Command line: runs the emulator until Ctrl-C.
 *
 *   node dist/emulator/cli.js --port 8080 [--state world.json] [--rate-limit N]
 */
import { DEFAULT_AUTH_FAILURE_LIMIT, DEFAULT_RATE_LIMIT, startEmulator, type EmulatorOptions, type RunningEmulator } from "./index";

/** The --help text. */
export const HELP = `Usage: node dist/emulator/cli.js [options]

Runs a local emulator of the review platform's admin API, with a seeded world
(organizations, people, databases, projects, invitations) and ready API keys.

Options:
  --port N                  port to listen on (default 8080; 0 picks a free one)
  --host ADDRESS            address to listen on (default 127.0.0.1)
  --state FILE              load the world from FILE if it exists, and save it there after
                            every change and at exit, so a demo survives a restart
  --rate-limit N            requests per second per account (default ${DEFAULT_RATE_LIMIT}; 0: no limit)
  --auth-failure-limit N    failed authentications per second per address (default ${DEFAULT_AUTH_FAILURE_LIMIT}; 0: no limit)
  --seed N | empty          seed of the world (default 1), or an empty world
  --members N               add N synthetic members to Northwind Legal (benchmarks)
  --databases N             add N synthetic databases to Northwind Legal
  --users-per-database N    new members with DB_UPLOAD on each synthetic database
  --help                    show this text

API:      <url>/v1/...    (Authorization: Bearer <key>)
Control:  <url>/_emulator (no key): reset, keys, clock, rate limit, faults, request log,
          and changes "behind the program's back". GET <url>/_emulator lists them.
`;

/** A bad command line; the message says what was wrong. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Parses the command line into emulator options; `help: true` when --help was asked. */
export function parseArgs(argv: readonly string[]): EmulatorOptions & { help?: boolean } {
  const options: EmulatorOptions & { help?: boolean } = { port: 8080, scale: {} };
  const count = (flag: string, value: string | undefined): number => {
    const n = Number(value);
    if (value === undefined || value === "" || !Number.isInteger(n) || n < 0) throw new UsageError(`${flag} takes a whole number, got ${value ?? "nothing"}`);
    return n;
  };
  const text = (flag: string, value: string | undefined): string => {
    if (value === undefined || value.startsWith("--")) throw new UsageError(`${flag} takes a value`);
    return value;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    switch (flag) {
      case "--help":
      case "-h": options.help = true; break;
      case "--port": options.port = count(flag, value); i++; break;
      case "--host": options.host = text(flag, value); i++; break;
      case "--state": options.stateFile = text(flag, value); i++; break;
      case "--rate-limit": options.rateLimit = count(flag, value); i++; break;
      case "--auth-failure-limit": options.authFailureLimit = count(flag, value); i++; break;
      case "--seed": options.seed = value === "empty" ? "empty" : count(flag, value); i++; break;
      case "--members": options.scale!.members = count(flag, value); i++; break;
      case "--databases": options.scale!.databases = count(flag, value); i++; break;
      case "--users-per-database": options.scale!.usersPerDatabase = count(flag, value); i++; break;
      default: throw new UsageError(`unknown option ${flag}`);
    }
  }
  return options;
}

/** The startup banner: URLs, where the state lives, and the keys of the seeded world. */
export function banner(emu: RunningEmulator, stateFile?: string): string {
  const lines = [
    `Review admin API emulator listening on ${emu.url}`,
    `  API base URL: ${emu.url}   (paths start with /v1)`,
    `  Control API:  ${emu.url}/_emulator`,
    stateFile ? `  State file:   ${stateFile}` : `  State:        in memory (use --state FILE to keep it)`,
    `Keys:`,
    ...Object.entries(emu.keys).map(([name, key]) => `  ${name.padEnd(16)} ${key}`),
    `Press Ctrl-C to stop.`,
  ];
  return lines.join("\n") + "\n";
}

/**
 * Runs the command line: prints help, or starts the emulator and prints the banner. Returns
 * the running emulator (undefined after --help); throws UsageError on a bad command line.
 */
export async function runCli(argv: readonly string[], write: (text: string) => void): Promise<RunningEmulator | undefined> {
  const options = parseArgs(argv);
  if (options.help) {
    write(HELP);
    return undefined;
  }
  const emu = await startEmulator(options);
  write(banner(emu, options.stateFile));
  return emu;
}

async function main(): Promise<void> {
  let emu: RunningEmulator | undefined;
  try {
    emu = await runCli(process.argv.slice(2), (t) => process.stdout.write(t));
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n\n${HELP}`);
      process.exit(2);
    }
    throw err;
  }
  if (!emu) return;
  const running = emu;
  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

// Run only as a program, not when a test imports runCli.
if (typeof require !== "undefined" && require.main === module) {
  main().catch((err) => {
    process.stderr.write(`emulator: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
