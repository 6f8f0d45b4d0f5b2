/**
 * The command line: help, options, and a start with --state that a second start finds again.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { HELP, parseArgs, runCli, UsageError } from "../../emulator/cli";
import { api } from "../support/emulatorHttp";

describe("command line", () => {
  it("prints help", async () => {
    let out = "";
    expect(await runCli(["--help"], (t) => (out += t))).toBeUndefined();
    expect(out).toBe(HELP);
    expect(HELP).toContain("--state FILE");
    expect(HELP).toContain("--rate-limit N");
  });

  it("parses options and refuses bad ones", () => {
    expect(parseArgs(["--port", "0", "--state", "w.json", "--rate-limit", "100", "--seed", "empty", "--members", "10"])).toMatchObject({
      port: 0, stateFile: "w.json", rateLimit: 100, seed: "empty", scale: { members: 10 },
    });
    expect(() => parseArgs(["--port", "eighty"])).toThrow(UsageError);
    expect(() => parseArgs(["--state"])).toThrow(UsageError);
    expect(() => parseArgs(["--frobnicate"])).toThrow(/unknown option/);
  });

  it("starts with --state, prints the URL and keys, and a second start finds the saved world", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "emulator-cli-"));
    const stateFile = path.join(dir, "demo.json");
    try {
      let out = "";
      const first = (await runCli(["--port", "0", "--state", stateFile], (t) => (out += t)))!;
      expect(out).toContain(`listening on ${first.url}`);
      expect(out).toContain(first.keys.orgAdmin);
      await api(first.url, first.keys.orgAdmin, "POST", "/v1/organizations/102/users", {
        users: [{ email: "demo.person@example.com", firstName: "Demo", lastName: "Person" }],
      });
      await first.close();
      const second = (await runCli(["--port", "0", "--state", stateFile], () => {}))!;
      try {
        const inv = await api(second.url, second.keys.orgAdmin, "GET", "/v1/organizations/102/invitations");
        expect(inv.body.data.invitations.map((i: any) => i.email)).toContain("demo.person@example.com");
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
