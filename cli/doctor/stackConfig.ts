/**
 * The `reviewadmin:*` settings of a Pulumi stack, read the way the provider gets them: through the
 * Pulumi CLI (`pulumi config --json --show-secrets`, secrets decrypted by Pulumi), so that the
 * doctor checks what `pulumi up` will use. Nothing is read when there is no Pulumi project in the
 * folder (a script's environment variables are then all there is).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { CONFIG_NAMESPACE } from "../../provider/settings";

/** A stack's settings, by setting name (`apiKey`, `baseUrl`...), as text. */
export interface StackSettings {
  stack: string;
  values: Record<string, string>;
}

/** Why no stack config was read (reported, not an error), or the failure of an explicit `--stack`. */
export type StackConfigResult = { found: StackSettings } | { none: string } | { error: string };

/** The folder of the Pulumi project `dir` is in, or undefined. */
function projectDir(dir: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, "Pulumi.yaml")) || fs.existsSync(path.join(d, "Pulumi.yml"))) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

/** The first line of a failed CLI run, for a message. */
const firstLine = (r: { stderr?: string; stdout?: string }) =>
  (r.stderr || r.stdout || "")
    .trim()
    .split("\n")[0]
    ?.replace(/^error: /, "");

/**
 * Reads `stack`'s config (default: the project's selected stack) in the project around `cwd`. With
 * an explicit stack, anything in the way is an error; without one, it is a reason to use the
 * environment.
 */
export function readStackConfig(opts: { stack?: string; cwd?: string } = {}): StackConfigResult {
  const cwd = opts.cwd ?? process.cwd();
  const fail = (why: string): StackConfigResult => (opts.stack ? { error: why } : { none: why });
  const dir = projectDir(cwd);
  if (!dir) return fail(`no Pulumi project (Pulumi.yaml) in ${cwd} or above`);
  const stackArgs = opts.stack ? ["--stack", opts.stack] : [];
  const run = (args: string[]) => spawnSync("pulumi", [...args, ...stackArgs, "--non-interactive"], { cwd, encoding: "utf8" });
  const name = run(["stack", "--show-name"]);
  if (name.error) return fail("the Pulumi CLI (pulumi) is not on PATH");
  if (name.status !== 0) return fail(`pulumi: ${firstLine(name) || "no stack selected"}`);
  const config = run(["config", "--json", "--show-secrets"]);
  if (config.status !== 0) return fail(`pulumi config: ${firstLine(config)}`);
  const values: Record<string, string> = {};
  for (const [key, entry] of Object.entries(JSON.parse(config.stdout) as Record<string, { value?: unknown }>)) {
    if (!key.startsWith(`${CONFIG_NAMESPACE}:`) || entry.value === undefined) continue;
    values[key.slice(CONFIG_NAMESPACE.length + 1)] = String(entry.value);
  }
  return { found: { stack: name.stdout.trim(), values } };
}
