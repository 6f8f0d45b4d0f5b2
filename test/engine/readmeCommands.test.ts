/**
 * Every `pulumi` command and flag README.md and the other RUN_DOCS (test/support/readme.ts) show is
 * in the Pulumi CLI's --help, and every flag of the benchmarks' `npm run bench --` in the compiled
 * benchmarks' (dist/bench/index.js --help). The `pulumi-reviewadmin` commands, the links, the
 * scripts and the versions they name:
 * test/cli/readme.test.ts; the blocks themselves: test/engine/readme.test.ts.
 */
import { describe, expect, it } from "vitest";
import { noEngine } from "../support/engine";
import { wrongClaims } from "../support/readmeCommands";

describe("the user docs name what exists", () => {
  // Without the Pulumi CLI (no Go to build it) only the benchmarks' claims are checked here;
  // test/support/engine.ts says why, and CI, which requires the CLI, checks them all.
  if (noEngine) console.info(`test/engine/readmeCommands.test.ts: the pulumi commands are not checked: ${noEngine}`);

  it("every pulumi command and flag they show is in the Pulumi CLI's --help, every benchmark flag in the benchmarks'", async () => {
    const { wrong, checked } = await wrongClaims(noEngine ? ["bench"] : ["pulumi", "bench"]);
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(noEngine ? 10 : 40);
  });
});
