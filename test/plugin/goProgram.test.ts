/**
 * A Go program on the plugin face, as a Go user makes one: the SDK generated from the plugin's
 * schema (`pulumi package get-schema`, `pulumi package gen-sdk --language go`), a program using it
 * (test/fixtures/plugin-go: a roster, a grant and an invitation), run by the Go language host under
 * the real CLI against the emulator: up, a no-change up that sends no request, destroy.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED, startEmulator, type RunningEmulator } from "../../emulator";
import { missingTool, skipWithoutEngine } from "../support/engine";
import { programFolder } from "../support/providerWorld";
import { runAsync } from "../../harness/runAsync";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const FIXTURE = path.resolve(__dirname, "../fixtures/plugin-go");
const PLUGIN = path.resolve(__dirname, "../../plugin/pulumi-resource-reviewadmin");

/** Why the Go program cannot run on this machine (no Go host beside the CLI, or no go command), if so. */
const NO_GO = missingTool({
  "pulumi-language-go": "tools/pulumi-cli/build.sh builds it beside the CLI",
  go: "a Go program is compiled by it: install Go 1.26",
});
skipWithoutEngine("go program");

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 0 });
});
afterAll(async () => {
  await emu?.close();
});

describe("a Go program on the plugin face", () => {
  // Skipped only on a machine without Go or the Go host (the reason is printed); CI builds both and fails instead.
  it.skipIf(!!NO_GO)(
    "generates its SDK from the schema, applies, sends nothing when nothing changed, destroys",
    { timeout: 600_000 },
    async () => {
      emu.reset();
      const dir = programFolder("go-program-");
      for (const f of fs.readdirSync(FIXTURE)) fs.copyFileSync(path.join(FIXTURE, f), path.join(dir, f));
      const env = {
        PULUMI_BACKEND_URL: `file://${path.join(dir, ".state")}`,
        PULUMI_CONFIG_PASSPHRASE: "go-test",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        GOFLAGS: "-mod=mod -buildvcs=false",
      };
      fs.mkdirSync(path.join(dir, ".state"));
      const pulumi = async (...args: string[]) => {
        const r = await runAsync("pulumi", [...args, "--non-interactive", "--color", "never"], { cwd: dir, env });
        expect(r.code, `pulumi ${args.join(" ")}\n${r.stdout}\n${r.stderr}`).toBe(0);
        return r.stdout;
      };

      // The SDK, as a Go user generates it.
      fs.writeFileSync(path.join(dir, "schema.json"), await pulumi("package", "get-schema", PLUGIN));
      await pulumi("package", "gen-sdk", "schema.json", "--language", "go", "--out", "sdk");
      fs.writeFileSync(path.join(dir, "sdk/go/reviewadmin/go.mod"), "module example.com/reviewadmin/sdk/go/reviewadmin\n\ngo 1.26\n");

      await pulumi("stack", "init", "dev");
      await pulumi("config", "set", "reviewadmin:baseUrl", emu.url);
      await pulumi("config", "set", "--secret", "reviewadmin:apiKey", emu.keys.orgAdmin!);
      await pulumi("config", "set", "reviewadmin:requestsPerSecond", "1000");
      const up = await pulumi("up", "--yes", "--skip-preview");
      expect(up).toContain('zoeStatus: "pending"');
      expect(emu.store.invitations.of(ORG).map((i) => i.email)).toEqual(
        expect.arrayContaining(["ann@northwind.example", "zoe@example.com"]),
      );
      expect(emu.store.databases.findUser(DB, SEEDED.users.member)?.permissions).toEqual(["DB_UPLOAD"]);

      const mark = emu.traffic.log.list().length;
      await pulumi("up", "--yes", "--expect-no-changes");
      expect(
        emu.traffic.log
          .list()
          .slice(mark)
          .map((e) => `${e.method} ${e.operation}`),
      ).toEqual([]);

      await pulumi("destroy", "--yes", "--skip-preview");
      expect(emu.store.databases.findUser(DB, SEEDED.users.member)).toBeUndefined();
    },
  );
});
