/** The prelude of the review CLI tests: one emulator per file on a clock standing at T0, an org admin's key file, and `review` into a folder. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { runCli } from "./runCli";

/** The emulator's clock: it stands still, so "as of" and the service's clock at the read are T0 exactly. */
export const T0 = Date.parse("2026-11-20T12:00:00.000Z");

/** Starts the emulator and a temporary folder for the file (`label` names it); `review(out, ...)` runs the command with the org admin's key. */
export function useReviewEmulator(label: string) {
  const world = { emu: undefined as unknown as RunningEmulator, tmp: "", keyFile: "" };
  beforeAll(async () => {
    world.emu = await startEmulator({ rateLimit: 0, clock: () => T0 });
    world.tmp = fs.mkdtempSync(path.join(os.tmpdir(), `reviewadmin-${label}-`));
    world.keyFile = path.join(world.tmp, "key");
    fs.writeFileSync(world.keyFile, world.emu.keys.orgAdmin!);
  });
  afterAll(async () => {
    await world.emu?.close();
    if (world.tmp) fs.rmSync(world.tmp, { recursive: true, force: true });
  });
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
