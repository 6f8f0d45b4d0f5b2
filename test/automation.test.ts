/**
 * The examples' scenarios (test/support/exampleScenarios.ts) through the real Pulumi CLI, with the
 * Automation API (LocalWorkspace, a local file backend in a temporary folder, no login), and the
 * demo's CLI branch. They need `pulumi` on PATH.
 */
import { describe, expect, it } from "vitest";
import { main, SUCCESS_LINE } from "../demo";
import { cliStack, hasPulumiCli } from "../harness/stacks";
import { exampleScenarios } from "./support/exampleScenarios";

// Skipped unless the CLI answers `pulumi version`: the Pulumi CLI is not installed on this
// machine; these tests run the examples through the real CLI when it is.
const hasCli = hasPulumiCli();
const SKIP_REASON = "the Pulumi CLI is not installed on this machine; these tests run the examples through the real CLI when it is";
if (!hasCli) console.info(`test/automation.test.ts skipped: ${SKIP_REASON}`);

exampleScenarios({ name: "cli", skip: !hasCli, makeStack: cliStack, timeout: 300_000 });

describe("npm run demo with the Pulumi CLI", () => {
  // Skipped when the Pulumi CLI is not installed (SKIP_REASON above); test/examples.test.ts runs the demo with the harness.
  it.skipIf(!hasCli)(
    "runs the program through the Automation API and ends with the drift found and repaired",
    async () => {
      let out = "";
      const code = await main([], (t) => (out += t));
      expect(code, out).toBe(0);
      expect(out).toContain("Pulumi CLI found");
      expect(out.trimEnd().split("\n").at(-1)).toBe(SUCCESS_LINE);
    },
    300_000,
  );
});
