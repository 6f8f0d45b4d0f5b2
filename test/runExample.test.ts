/**
 * `npm run example -- <name>`: an example runs on this machine without the Pulumi CLI, the way
 * the demo does, and a second up changes nothing. (Every example's behaviour is covered in
 * test/examples.test.ts; this proves the command users run.)
 */
import * as fs from "node:fs";
import * as path from "node:path";
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

  it("runs a program in its project folder, as pulumi up does: the access review's report lands there", async () => {
    const report = path.resolve(__dirname, "../examples/access-review/access-review.md");
    const home = process.cwd();
    fs.rmSync(report, { force: true });
    let out = "";
    const code = await main(["access-review", "--harness"], (t) => void (out += t));
    expect(out).toContain("Result: access-review applied, and a second up changed nothing.");
    expect(code).toBe(0);
    expect(fs.readFileSync(report, "utf8")).toMatch(/^# Access review: Northwind Legal \(organization 102\)/);
    expect(process.cwd()).toBe(home);
    fs.rmSync(report);
  });

  it("names the examples when given none, or an unknown one", async () => {
    for (const argv of [[], ["nope"], ["access-review", "--frob"]]) {
      let out = "";
      expect(await main(argv, (t) => void (out += t))).toBe(2);
      expect(out).toMatch(new RegExp(`^npm run example: give one of ${EXAMPLES.join(", ")}`));
    }
  });
});
