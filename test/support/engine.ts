/**
 * Whether this run has the Pulumi CLI, as test/support/engineSetup.ts left it: program-level tests
 * run under the real engine and skip, saying why, only where the CLI could not be had.
 */
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
