/**
 * The emulator's world at start: the named keys are the same whatever the scale options (the docs
 * list them), and a state file that the emulator did not write is refused with one line.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator";
import { runCli } from "../cli/runCli";

describe("the emulator's world", () => {
  it("has the same named keys with and without scale options", async () => {
    const plain = await startEmulator({ rateLimit: 0 });
    const scaled = await startEmulator({ rateLimit: 0, scale: { members: 30, databases: 2, usersPerDatabase: 3 } });
    try {
      expect(scaled.keys).toEqual(plain.keys);
      expect(scaled.store.members.of(102).length).toBe(plain.store.members.of(102).length + 30 + 2 * 3);
    } finally {
      await plain.close();
      await scaled.close();
    }
  });

  it("refuses a state file it did not write, saying so in one line", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "emulator-state-"));
    try {
      const notJson = path.join(dir, "notes.txt");
      fs.writeFileSync(notJson, "hello\n");
      await expect(startEmulator({ stateFile: notJson })).rejects.toThrow(
        new RegExp(`^${notJson.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is not a state file of the emulator \\(not JSON: `),
      );
      const otherJson = path.join(dir, "package.json");
      fs.writeFileSync(otherJson, '{ "name": "x" }\n');
      await expect(startEmulator({ stateFile: otherJson })).rejects.toThrow(
        /is not a state file of the emulator \(JSON without the emulator's version/,
      );
      const r = await runCli(["emulator", "--state", otherJson, "--port", "0", "--quiet"]);
      expect(r.code).not.toBe(0);
      expect(r.err).toMatch(/is not a state file of the emulator/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
