/**
 * A machine without the Pulumi CLI, for the tests of what such a machine sees (`npm run demo`,
 * `npm run example`). Not in test/support/engine.ts, whose import asks the CLI its version: the
 * unit tier's files that use this start no process.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/**
 * Runs `fn` as on a machine without the Pulumi CLI: no folder holding `pulumi` on PATH, and an
 * empty build cache (REVIEWADMIN_PULUMI_CACHE, tools/pulumi-cli/build.sh); both restored after.
 */
export async function withoutPulumiCli<T>(fn: () => Promise<T>): Promise<T> {
  const saved = { PATH: process.env.PATH, REVIEWADMIN_PULUMI_CACHE: process.env.REVIEWADMIN_PULUMI_CACHE };
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "no-pulumi-cache-"));
  process.env.PATH = (saved.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => !fs.existsSync(path.join(dir, "pulumi")))
    .join(path.delimiter);
  process.env.REVIEWADMIN_PULUMI_CACHE = cache;
  try {
    return await fn();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    fs.rmSync(cache, { recursive: true, force: true });
  }
}
