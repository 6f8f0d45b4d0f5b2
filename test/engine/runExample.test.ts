/**
 * `npm run example -- <name>`: an example runs on this machine under the Pulumi CLI, in its
 * project folder as `pulumi up` there runs it (custodian-sync reads its CSV by a path relative to
 * it), and a second up changes nothing. (Every example's behaviour is covered in
 * test/engine/examples.test.ts; this proves the command users run. Its usage, and its one line
 * on a machine without the CLI: test/runExample.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { main } from "../../demo/runExample";
import { noEngine } from "../support/engine";

describe("npm run example", () => {
  // Skipped only on a machine with no Pulumi CLI and no Go to build one (test/support/engine.ts prints why once);
  // CI sets REVIEWADMIN_REQUIRE_PULUMI=1, so there a missing CLI fails the run instead.
  it.skipIf(!!noEngine)("runs custodian-sync, reading its CSV from its project folder: up, then an up that changes nothing", async () => {
    let out = "";
    const code = await main(["custodian-sync"], (t) => void (out += t));
    expect(out).toMatch(
      /^Example custodian-sync, against the emulator at http:\/\/127\.0\.0\.1:\d+ \(seeded world\), with the Pulumi CLI v/,
    );
    expect(out).toMatch(/created +CustodianDirectorySync +custodians\n +7 people synced into directory 5001/);
    expect(out).toMatch(/pulumi up, again\n +same +CustodianDirectorySync +custodians/);
    expect(out).toContain("Result: custodian-sync applied, and a second up changed nothing.");
    expect(code, out).toBe(0);
  });
});
