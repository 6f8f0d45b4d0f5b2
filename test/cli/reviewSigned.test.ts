/**
 * A signed packet (issue 55): `review apply-signoff` keeps the sign-off it applied in the packet
 * and records who signed, the attestation and the day in manifest.json, so `review verify` covers
 * it; `review --out` never replaces a signed packet, not even with --force, and the next review
 * goes into a folder of its own with the signed one as --previous. `review reconcile`'s bad input
 * is one line naming the option.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SIGNOFF_CSV_HEADER } from "../../cli/review/htmlDecide";
import { ATTESTATION } from "../../cli/review/html";
import { sha256 } from "../../cli/review/manifest";
import { SEEDED } from "../../emulator";
import { T0, useReviewEmulator } from "./reviewEmulator";
import { runCli } from "./runCli";

const { world, review } = useReviewEmulator("signed");
const asOf = new Date(T0 - 86_400_000).toISOString();

/** Exports the world into a project folder: apply-signoff's access.ts. */
async function exported(): Promise<string> {
  const project = fs.mkdtempSync(path.join(world.tmp, "access-"));
  const common = ["--base-url", world.emu.url, "--api-key-file", world.keyFile, "--requests-per-second", "1000", "-q"];
  expect(await runCli(["export", ...common, "--out", project, "--force", "--project", "signed"])).toMatchObject({ code: 0 });
  return path.join(project, "access.ts");
}

/** A sign-off as review.html saves it (JSON): the packet's hash, the reviewer, the attestation. */
function pageSignoff(packet: string): string {
  const file = path.join(world.tmp, "signoff-page.json");
  const text = JSON.stringify({
    format: "pulumi-reviewadmin sign-off 1",
    packet: { sha256: sha256(fs.readFileSync(path.join(packet, "review.json"))), asOf },
    reviewer: "Ada Lovelace <ada@northwind.example>",
    attestation: ATTESTATION,
    signedAt: "2026-11-21T09:30:00.000Z",
    decisions: [
      {
        organization: SEEDED.org,
        email: "alan@northwind.example",
        scope: "organization",
        decision: "remove",
        justification: "left the firm",
      },
      { organization: SEEDED.org, email: "ada@northwind.example", scope: "organization", decision: "keep", justification: "" },
    ],
  });
  fs.writeFileSync(file, text);
  return file;
}

const apply = (signoff: string, packet: string, access: string, ...more: string[]) =>
  runCli(["review", "apply-signoff", "--signoff", signoff, "--packet", packet, "--access", access, "--on", "2026-11-21", ...more]);

describe("a signed packet", () => {
  it("apply-signoff keeps the sign-off in the packet and records the reviewer, attestation and day in its manifest; applied again, nothing new", async () => {
    const packet = path.join(world.tmp, "2026-11");
    expect(await review(packet, "--as-of", asOf)).toMatchObject({ code: 0 });
    const access = await exported();
    const signoff = pageSignoff(packet);
    // --check records nothing.
    expect(await apply(signoff, packet, access, "--check")).toMatchObject({ code: 0 });
    expect(JSON.parse(fs.readFileSync(path.join(packet, "manifest.json"), "utf8")).signoffs).toBeUndefined();

    const applied = await apply(signoff, packet, access);
    expect(applied, applied.err).toMatchObject({ code: 0 });
    const copy = `signoff-${sha256(fs.readFileSync(signoff)).slice(0, 12)}.json`;
    expect(applied.out).toContain(
      `Recorded in ${path.join(packet, "manifest.json")}: ${copy}, signed off by Ada Lovelace <ada@northwind.example> on 2026-11-21, attested; a later review writes into a folder of its own.`,
    );
    const manifest = JSON.parse(fs.readFileSync(path.join(packet, "manifest.json"), "utf8"));
    expect(manifest.signoffs).toEqual([
      {
        file: copy,
        sha256: sha256(fs.readFileSync(signoff)),
        reviewer: "Ada Lovelace <ada@northwind.example>",
        attestation: ATTESTATION,
        on: "2026-11-21",
        signedAt: "2026-11-21T09:30:00.000Z",
        decisions: { keep: 1, remove: 1, change: 0, undecided: 0 },
      },
    ]);
    expect(fs.readFileSync(path.join(packet, copy), "utf8")).toBe(fs.readFileSync(signoff, "utf8"));
    const verified = await runCli(["review", "verify", packet]);
    expect(verified, verified.out).toMatchObject({ code: 0 });
    expect(verified.out).toContain("5 files match manifest.json");

    const again = await apply(signoff, packet, access, "--json");
    expect(JSON.parse(again.out).recorded).toBe(path.join(packet, copy));
    expect(JSON.parse(fs.readFileSync(path.join(packet, "manifest.json"), "utf8")).signoffs).toHaveLength(1);
  });

  it("a CSV saved by the page carries the attestation; the row reviewers sign when the file names no one", async () => {
    const packet = path.join(world.tmp, "csv-signed");
    expect(await review(packet, "--as-of", asOf)).toMatchObject({ code: 0 });
    const hash = sha256(fs.readFileSync(path.join(packet, "review.json")));
    const row = [
      String(SEEDED.org),
      "alan@northwind.example",
      "Alan Turing",
      "organization",
      "",
      "",
      "remove",
      "left",
      "Grace Hopper",
      "2026-11-21",
      hash,
      ATTESTATION,
    ];
    const cell = (c: string) => (/[",;\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
    const csv = path.join(world.tmp, "signoff-page.csv");
    fs.writeFileSync(csv, `\uFEFFsep=,\r\n${SIGNOFF_CSV_HEADER.join(",")}\r\n${row.map(cell).join(",")}\r\n`);
    expect(await apply(csv, packet, await exported())).toMatchObject({ code: 0 });
    const [record] = JSON.parse(fs.readFileSync(path.join(packet, "manifest.json"), "utf8")).signoffs;
    expect(record).toMatchObject({ reviewer: "Grace Hopper", attestation: ATTESTATION, decisions: { remove: 1 } });
    expect(record.file).toMatch(/^signoff-[0-9a-f]{12}\.csv$/);
  });

  it("review --out never replaces a signed packet, not with --force nor --previous; the next review goes beside it", async () => {
    const packet = path.join(world.tmp, "2026-11");
    const before = fs.readFileSync(path.join(packet, "manifest.json"), "utf8");
    world.emu.traffic.log.reset();
    for (const more of [["--force"], ["--previous", packet]]) {
      const refused = await review(packet, ...more);
      expect(refused.code).toBe(2);
      expect(refused.err.trim()).toBe(
        `pulumi-reviewadmin review: --out ${packet} holds a signed review packet (signed off by Ada Lovelace <ada@northwind.example> on 2026-11-21): ` +
          "a signed packet is the evidence of that review and is never replaced, not even with --force; write the new review into a folder of its own " +
          "(the monthly workflow writes access-review/<year-month>/) and name this one with --previous (see pulumi-reviewadmin review --help)",
      );
    }
    expect(world.emu.traffic.log.counters.total).toBe(0);
    expect(fs.readFileSync(path.join(packet, "manifest.json"), "utf8")).toBe(before);
    const next = path.join(world.tmp, "2026-12");
    const written = await review(next, "--previous", packet);
    expect(written, written.err).toMatchObject({ code: 0 });
    expect(JSON.parse(fs.readFileSync(path.join(next, "review.json"), "utf8")).organizations[0].since.previousAsOf).toBe(asOf);
  });

  it("review reconcile: bad input is one line naming the option (exit 2); --help says what it records", async () => {
    const missing = await runCli(["review", "reconcile", "--packet", world.tmp]);
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.err).toContain("--signoff is required");
    const packet = path.join(world.tmp, "2026-11");
    const signoff = pageSignoff(packet);
    const notLog = path.join(world.tmp, "not-a-log.txt");
    fs.writeFileSync(notLog, "Updating (prod)\n");
    const bad = await runCli(["review", "reconcile", "--signoff", signoff, "--packet", packet, "--up-log", notLog]);
    expect(bad).toMatchObject({ code: 2 });
    expect(bad.err.trim()).toBe(
      `pulumi-reviewadmin review reconcile: --up-log ${notLog} line 1: not a JSON engine event; give what \`pulumi up --json\` printed (see pulumi-reviewadmin review reconcile --help)`,
    );
    const help = await runCli(["review", "reconcile", "--help"]);
    expect(help.out).toContain("reconcile.json");
    expect(help.out).toContain("pulumi up --json");
  });
});
