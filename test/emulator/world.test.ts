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

  it("spreads scale over a firm's organizations: each gets its members and databases, some people are in two, one key administers all", async () => {
    const plain = await startEmulator({ rateLimit: 0 });
    const firm = await startEmulator({
      rateLimit: 0,
      scale: { organizations: 5, members: 30, databases: 2, usersPerDatabase: 3, sharedMembers: 4 },
    });
    try {
      expect(firm.keys).toEqual(plain.keys);
      const store = firm.store;
      const orgs = [102, 103, 101, 105, 106];
      expect(store.organizations.get(105).parentOrganizationId ?? null).toBeNull();
      expect(store.organizations.get(102).parentOrganizationId).toBe(101);
      for (const id of orgs) {
        const before = id > 104 ? 0 : plain.store.members.of(id).length;
        // 30 members and 2 x 3 database users of its own, 4 of the previous organization's, and Ada (already in 102).
        expect(store.members.of(id).length, `organization ${id}`).toBe(before + 30 + 2 * 3 + 4 + (id === 102 ? 0 : 1));
        expect(store.members.find(id, 1001)?.permissions).toContain("ORG_ADMIN");
        expect(store.databases.of(id).filter((d) => d.name.startsWith("Synthetic matter")).length).toBe(2);
      }
      // 104 (Contoso) is not the firm's.
      expect(store.members.of(104).length).toBe(plain.store.members.of(104).length);
      const orgsOf = new Map<number, number>();
      for (const o of orgs) for (const m of store.members.of(o)) orgsOf.set(m.userId, (orgsOf.get(m.userId) ?? 0) + 1);
      const synthetic = [...orgsOf].filter(([id]) => store.users.get(id).email.startsWith("synthetic-"));
      expect(synthetic.filter(([, n]) => n === 2).length).toBe(5 * 4);
      expect(synthetic.length).toBe(5 * (30 + 2 * 3));
    } finally {
      await plain.close();
      await firm.close();
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
