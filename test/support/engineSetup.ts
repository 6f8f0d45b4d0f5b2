/**
 * Vitest global setup of the engine tier (vitest.config.ts): puts the Pulumi CLI on PATH for its
 * test files (harness/pulumiCli.ts): from PATH, from the build cache, or built once from source
 * when Go is installed. The unit and service tiers never need it. Without it the engine tests
 * skip, each file saying why (engineSkipReason); with REVIEWADMIN_REQUIRE_PULUMI=1 (CI sets it) a
 * missing CLI fails the run instead.
 */
import { useCli } from "../../harness/pulumiCli";

export default function setup(): void {
  const cli = useCli({ build: true, log: (line) => console.info(line) });
  if (cli.found) {
    console.info(`Pulumi CLI ${cli.version} (${cli.source}${cli.bin ? `: ${cli.bin}` : ""}): the engine tests run under it`);
    return;
  }
  if (process.env.REVIEWADMIN_REQUIRE_PULUMI === "1") throw new Error(`REVIEWADMIN_REQUIRE_PULUMI=1 and ${cli.reason}`);
  process.env.REVIEWADMIN_NO_PULUMI = cli.reason;
  console.info(`The engine tests skip: ${cli.reason}`);
}
