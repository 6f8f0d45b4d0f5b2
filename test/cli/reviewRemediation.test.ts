/**
 * `review verify-remediation` (issue 36): after a sign-off with two removals, one of them made,
 * the service is read again: the one made is confirmed gone (with the service's clock), the other
 * reported not yet applied; remediation.json joins the packet and its manifest.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { control } from "../support/emulatorHttp";
import { T0, useReviewEmulator } from "./reviewEmulator";
import { runCli } from "./runCli";

const { world, review } = useReviewEmulator("remediation");

describe("review verify-remediation", () => {
  it("confirms a removal made and reports one not yet applied; remediation.json is added to the manifest", async () => {
    const packet = path.join(world.tmp, "packet");
    expect(await review(packet, "--as-of", new Date(T0).toISOString())).toMatchObject({ code: 0 });
    const signoff = path.join(world.tmp, "signoff.json");
    fs.writeFileSync(
      signoff,
      JSON.stringify([
        {
          email: "margaret@northwind.example",
          scope: `database ${SEEDED.databases.open}`,
          decision: "remove",
          justification: "matter closed",
        },
        { email: "alan@northwind.example", scope: "organization", decision: "remove", justification: "left the firm" },
      ]),
    );
    // One removal made (Margaret's grant taken away), the other not yet.
    const removed = await control(world.emu.url, "DELETE", `/databases/${SEEDED.databases.open}/users/${SEEDED.users.multiOrgMember}`);
    expect(removed.status).toBeLessThan(300);

    const common = ["--base-url", world.emu.url, "--api-key-file", world.keyFile, "--requests-per-second", "1000"];
    const r = await runCli(["review", "verify-remediation", "--signoff", signoff, "--packet", packet, ...common]);
    expect(r.code, r.err).toBe(1);
    expect(r.out).toContain("2 removals");
    expect(r.out).toContain("1 gone, 1 not yet.");
    expect(r.out).toContain(
      `  gone margaret@northwind.example on database ${SEEDED.databases.open} of organization ${SEEDED.org}: confirmed ${new Date(T0).toISOString()}`,
    );
    expect(r.out).toContain(`  not yet applied alan@northwind.example on organization of organization ${SEEDED.org}`);
    const report = JSON.parse(fs.readFileSync(path.join(packet, "remediation.json"), "utf8"));
    expect(report.removals.map((x: { status: string }) => x.status)).toEqual(["gone", "held"]);

    const verified = await runCli(["review", "verify", packet]);
    expect(verified, verified.out).toMatchObject({ code: 0 });
    expect(verified.out).toContain("5 files match manifest.json");

    // A new review into the same folder (--force) is a new packet: the old one's remediation.json goes with it.
    expect(await review(packet, "--as-of", new Date(T0).toISOString(), "--force")).toMatchObject({ code: 0 });
    expect(fs.existsSync(path.join(packet, "remediation.json"))).toBe(false);
    const again = await runCli(["review", "verify", packet]);
    expect(again, again.out).toMatchObject({ code: 0 });
    expect(again.out).toContain("4 files match manifest.json");
  });

  it("bad input names the option (exit 2); --help says what it writes", async () => {
    const r = await runCli(["review", "verify-remediation", "--packet", world.tmp]);
    expect(r).toMatchObject({ code: 2 });
    expect(r.err).toContain("--signoff is required");
    const help = await runCli(["review", "verify-remediation", "--help"]);
    expect(help.out).toContain("remediation.json");
  });
});
