/**
 * `npm run example -- <name>` without running one: its usage when given none, an unknown example
 * or an option, and its one line on a machine without the Pulumi CLI. Plain values: the example
 * run under the CLI is test/engine/runExample.test.ts.
 */
import { describe, expect, it } from "vitest";
import { EXAMPLES, main } from "../demo/runExample";
import { withoutPulumiCli } from "./support/withoutPulumiCli";

describe("npm run example", () => {
  it("names the examples when given none, or an unknown one", async () => {
    for (const argv of [[], ["nope"], ["access-review", "--frob"], ["custodian-sync", "--harness"]]) {
      let out = "";
      expect(await main(argv, (t) => void (out += t))).toBe(2);
      expect(out).toMatch(new RegExp(`^npm run example: give one of ${EXAMPLES.join(", ")}`));
    }
  });

  it("without the Pulumi CLI: one line saying how to get it, exit code 1", async () => {
    let out = "";
    const code = await withoutPulumiCli(() => main(["custodian-sync"], (t) => void (out += t)));
    expect(out).toBe(
      "npm run example runs under the Pulumi CLI, and the Pulumi CLI is not on PATH nor built: run `npm run pulumi-cli` " +
        "(builds it from source, needs Go >= 1.26) or install the Pulumi CLI (see README.md).\n",
    );
    expect(code).toBe(1);
  });
});
