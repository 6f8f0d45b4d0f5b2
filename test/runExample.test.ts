/**
 * `npm run example -- <name>`: an example runs on this machine without the Pulumi CLI, the way
 * the demo does, and a second up changes nothing. (Every example's behaviour is covered in
 * test/examples.test.ts; this proves the command users run.)
 */
import { describe, expect, it } from "vitest";
import { EXAMPLES, main } from "../demo/runExample";

describe("npm run example", () => {
  it("runs custodian-sync with the harness: up, then an up that changes nothing", async () => {
    let out = "";
    const code = await main(["custodian-sync", "--harness"], (t) => void (out += t));
    expect(out).toContain("with the bundled plugin harness");
    expect(out).toMatch(/created +CustodianDirectorySync +custodians\n +7 people synced into directory 5001/);
    expect(out).toMatch(/pulumi up, again\n +same +CustodianDirectorySync +custodians/);
    expect(out).toContain("Result: custodian-sync applied, and a second up changed nothing.");
    expect(code).toBe(0);
  });

  it("names the examples when given none, or an unknown one", async () => {
    for (const argv of [[], ["nope"], ["access-review", "--frob"]]) {
      let out = "";
      expect(await main(argv, (t) => void (out += t))).toBe(2);
      expect(out).toMatch(new RegExp(`^npm run example: give one of ${EXAMPLES.join(", ")}`));
    }
  });
});
