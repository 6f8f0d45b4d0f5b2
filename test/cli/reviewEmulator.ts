/** The prelude of the CLI tests that read the emulator: one emulator per file, an org admin's key file, and for review a clock standing at T0 and `review` into a folder. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PACKET_FORMAT, type ReviewOrganization, type ReviewPacket } from "../../cli/review/format";
import { runCli } from "./runCli";

/** The emulator's clock: it stands still, so "as of" and the service's clock at the read are T0 exactly. */
export const T0 = Date.parse("2026-11-20T12:00:00.000Z");

/** A packet as a review at T0 writes it with the defaults (90 stale days, 14 expiring, no firm domain), of `organizations`; `more` adds the rest (a stack). */
export function packetAtT0(organizations: ReviewOrganization[], more: Partial<ReviewPacket> = {}): ReviewPacket {
  return {
    format: PACKET_FORMAT,
    asOf: new Date(T0).toISOString(),
    staleDays: 90,
    staleDaysByPrivilege: {},
    expiringDays: 14,
    activityWindow: { begin: "2026-08-22T12:00:00.000Z", end: new Date(T0).toISOString() },
    firmDomains: [],
    notJudged: [],
    organizations,
    ...more,
  };
}

/**
 * One emulator per test file (clock: the emulator's own unless given) and a temporary folder
 * (`label` names it) holding an org admin's key file; both gone after the file's tests.
 */
export function useCliEmulator(label: string, clock?: () => number) {
  const world = { emu: undefined as unknown as RunningEmulator, tmp: "", keyFile: "" };
  beforeAll(async () => {
    world.emu = await startEmulator({ rateLimit: 0, ...(clock ? { clock } : {}) });
    world.tmp = fs.mkdtempSync(path.join(os.tmpdir(), `reviewadmin-${label}-`));
    world.keyFile = path.join(world.tmp, "key");
    fs.writeFileSync(world.keyFile, world.emu.keys.orgAdmin!);
  });
  afterAll(async () => {
    await world.emu?.close();
    if (world.tmp) fs.rmSync(world.tmp, { recursive: true, force: true });
  });
  return world;
}

/** useCliEmulator on a clock standing at T0; `review(out, ...)` runs the command with the org admin's key. */
export function useReviewEmulator(label: string) {
  const world = useCliEmulator(label, () => T0);
  const review = (out: string, ...more: string[]) =>
    runCli([
      "review",
      "--base-url",
      world.emu.url,
      "--api-key-file",
      world.keyFile,
      "--requests-per-second",
      "1000",
      "--out",
      out,
      "-q",
      ...more,
    ]);
  return { world, review };
}
