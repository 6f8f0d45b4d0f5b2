/**
 * Finding the Pulumi CLI the program-level tests, the demo and the benchmarks run under: `pulumi`
 * on PATH, else the build cached by tools/pulumi-cli/build.sh, else (when asked) a build of it,
 * which needs Go. See tools/pulumi-cli/README.md.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

// harness/ in the sources, dist/harness/ when built.
const BUILD_SCRIPT = [
  path.resolve(__dirname, "../tools/pulumi-cli/build.sh"),
  path.resolve(__dirname, "../../tools/pulumi-cli/build.sh"),
].find((f) => fs.existsSync(f))!;

/** Where the CLI came from, or why there is none. */
export type PulumiCli =
  { found: true; version: string; source: "PATH" | "cache" | "built"; bin?: string } | { found: false; reason: string };

/** `pulumi version` of the `pulumi` that `env`'s PATH finds, or undefined. */
export function pulumiVersion(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const r = spawnSync("pulumi", ["version"], { env, encoding: "utf8", timeout: 20_000 });
    return r.status === 0 ? r.stdout.trim() : undefined;
  } catch {
    return undefined;
  }
}

function withBin(bin: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, PATH: `${bin}${path.delimiter}${env.PATH ?? ""}` };
}

/**
 * Finds the CLI (PATH first, then the cache of build.sh) and, with `build`, builds it when it is
 * in neither and Go is installed, showing the build's progress through `log`. Does not change
 * the environment: {@link useCli} does.
 */
export function findPulumiCli(opts: { build?: boolean; log?: (line: string) => void } = {}): PulumiCli {
  const onPath = pulumiVersion();
  if (onPath) return { found: true, version: onPath, source: "PATH" };
  const script = (args: string[], stderr: "pipe" | "inherit") =>
    spawnSync("bash", [BUILD_SCRIPT, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", stderr] });
  const cached = script(["--check"], "pipe");
  const bin = (out: string) => out.trim().split("\n").at(-1)!;
  if (cached.status === 0)
    return { found: true, version: pulumiVersion(withBin(bin(cached.stdout), process.env))!, source: "cache", bin: bin(cached.stdout) };
  const how = "run `npm run pulumi-cli` (builds it from source, needs Go >= 1.26) or install the Pulumi CLI";
  if (!opts.build) return { found: false, reason: `the Pulumi CLI is not on PATH nor built: ${how}` };
  if (spawnSync("go", ["version"], { stdio: "ignore" }).status !== 0) {
    return { found: false, reason: `the Pulumi CLI is not on PATH and Go is not installed to build it: ${how}` };
  }
  opts.log?.("Pulumi CLI not on PATH nor cached: building it from source once (tools/pulumi-cli/build.sh)");
  const built = script([], "inherit");
  if (built.status !== 0)
    return { found: false, reason: `building the Pulumi CLI failed (tools/pulumi-cli/build.sh exited ${built.status})` };
  const dir = bin(built.stdout);
  return { found: true, version: pulumiVersion(withBin(dir, process.env)) ?? "unknown", source: "built", bin: dir };
}

/**
 * The environment a run of the found CLI needs, on top of `env`: its bin/ and this process's Node
 * first on PATH (the language host and the plugins start `node`), no update check, no plugin
 * downloads, and a PULUMI_HOME of its own unless one is set. Backends and passphrases are per stack.
 */
export function cliEnv(cli: Extract<PulumiCli, { found: true }>, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  let out = withBin(path.dirname(process.execPath), env);
  if (cli.bin) out = withBin(cli.bin, out);
  const home = env.PULUMI_HOME ?? path.join(os.tmpdir(), "reviewadmin-pulumi-home");
  fs.mkdirSync(home, { recursive: true });
  return {
    ...out,
    PULUMI_HOME: home,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
}

/** Finds the CLI and puts it into this process's environment; returns what was found. */
export function useCli(opts: { build?: boolean; log?: (line: string) => void } = {}): PulumiCli {
  const cli = findPulumiCli(opts);
  if (cli.found) Object.assign(process.env, cliEnv(cli));
  return cli;
}
