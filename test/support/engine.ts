/**
 * Whether this run has the Pulumi CLI, as test/support/engineSetup.ts left it: program-level tests
 * run under the real engine and skip, saying why, only where the CLI could not be had.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeEach } from "vitest";
import { pulumiVersion } from "../../harness/pulumiCli";

/** Why the engine tests skip (the CLI is missing and could not be built), or undefined when they run. */
export const noEngine: string | undefined =
  process.env.REVIEWADMIN_NO_PULUMI ?? (pulumiVersion() ? undefined : "the Pulumi CLI is not on PATH");

/** Registers a hook that skips each test of the file, with the reason, when there is no engine. */
export function skipWithoutEngine(file: string): void {
  if (noEngine) console.info(`${file}: the engine tests skip: ${noEngine}`);
  beforeEach((ctx) => {
    if (noEngine) ctx.skip(noEngine);
  });
}

/**
 * Why a program-level test of another language cannot run here, or undefined when it can: the
 * first of `tools` (executables the CLI's language host or the program needs: `pulumi-language-yaml`,
 * `go`) missing from PATH, with `how` to get it. Never a reason when the engine itself is missing
 * (skipWithoutEngine says that). Under REVIEWADMIN_REQUIRE_PULUMI=1 (CI, whose build.sh builds the
 * hosts) a missing tool fails the file instead of skipping it.
 */
export function missingTool(tools: Record<string, string>): string | undefined {
  if (noEngine) return undefined;
  const onPath = (name: string) => (process.env.PATH ?? "").split(path.delimiter).some((dir) => fs.existsSync(path.join(dir, name)));
  const missing = Object.entries(tools).find(([name]) => !onPath(name));
  const reason = missing && `${missing[0]} is not on PATH (${missing[1]})`;
  if (reason && process.env.REVIEWADMIN_REQUIRE_PULUMI === "1") throw new Error(`REVIEWADMIN_REQUIRE_PULUMI=1 and ${reason}`);
  return reason;
}
