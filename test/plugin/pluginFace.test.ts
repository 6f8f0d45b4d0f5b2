/**
 * The plugin face (`reviewadmin` provider plugin, provider/plugin/) under the real engine, from an
 * inline TypeScript program that registers its resources by type token, as any language's
 * generated SDK does: explicit providers side by side (each resource's requests go to its own
 * service with its own key), CheckConfig at preview, detailed diffs (one changed person is one
 * path), refresh, import by id, and the key in no file of the state.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED, startEmulator, type RunningEmulator } from "../../emulator";
import { EngineStack } from "../../harness/engineStack";
import { skipWithoutEngine } from "../support/engine";
import { programFolder } from "../support/providerWorld";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const PLUGIN_DIR = path.resolve(__dirname, "../../plugin");

skipWithoutEngine("plugin face");

let east: RunningEmulator;
let west: RunningEmulator;
beforeAll(async () => {
  [east, west] = await Promise.all([startEmulator({ rateLimit: 0 }), startEmulator({ rateLimit: 0, seed: 2 })]);
});
afterAll(async () => {
  await Promise.all([east?.close(), west?.close()]);
});

const stacks: EngineStack[] = [];
afterAll(async () => {
  for (const s of stacks) await s.close();
});

/** A stack whose default provider is the east emulator's, the plugin found on PATH. */
function pluginStack(project: string): EngineStack {
  east.reset();
  west.reset();
  const s = new EngineStack({
    cwd: programFolder(`${project}-`),
    project,
    config: {
      "reviewadmin:baseUrl": east.url,
      "reviewadmin:apiKey": east.keys.orgAdmin!,
      "reviewadmin:requestsPerSecond": "1000",
    },
    secretConfigKeys: ["reviewadmin:apiKey"],
    env: { PATH: `${PLUGIN_DIR}${path.delimiter}${process.env.PATH}` },
    keepTranscript: true,
  });
  stacks.push(s);
  return s;
}

const T = (kind: string) => `reviewadmin:index:${kind}`;

/** Requests after `mark` in an emulator's log, as the rate-limit account (the key) that sent them. */
const accountsFrom = (emu: RunningEmulator, mark: number) => new Set(emu.traffic.log.list().slice(mark).map((e) => e.account));

describe("the plugin face", () => {
  it("runs explicit providers side by side, each with its own service and key", async () => {
    const s = pluginStack("plugin-two");
    const [eastMark, westMark] = [east.traffic.log.list().length, west.traffic.log.list().length];
    const program = () => {
      const eastP = new pulumi.ProviderResource("reviewadmin", "east", {
        apiKey: pulumi.secret(east.keys.orgAdmin!),
        baseUrl: east.url,
        requestsPerSecond: 1000,
      });
      const westP = new pulumi.ProviderResource("reviewadmin", "west", {
        apiKey: pulumi.secret(west.keys.orgKey!),
        baseUrl: west.url,
        requestsPerSecond: 1000,
      });
      for (const [name, provider] of [
        ["east", eastP],
        ["west", westP],
      ] as const) {
        new pulumi.CustomResource(
          T("OrganizationMembers"),
          `legal-${name}`,
          { organizationId: ORG, mode: "additive", onUnmanaged: "report", members: { [`${name}.hire@northwind.example`]: { permissions: ["AI_ADMIN"] } } },
          { provider },
        );
      }
    };
    await s.up(program);
    const invited = (emu: RunningEmulator) => emu.store.invitations.of(ORG).map((i) => i.email);
    expect(invited(east)).toContain("east.hire@northwind.example");
    expect(invited(east)).not.toContain("west.hire@northwind.example");
    expect(invited(west)).toContain("west.hire@northwind.example");
    expect(invited(west)).not.toContain("east.hire@northwind.example");
    // East was called with Ada's user key only, west with the organization key only.
    expect(accountsFrom(east, eastMark)).toEqual(new Set([`user:${SEEDED.users.orgAdmin}`]));
    expect([...accountsFrom(west, westMark)]).toEqual([expect.stringMatching(/^key:/)]);
    // The key is in no file of the state, although both providers' inputs hold it.
    for (const file of filesIn(s.backendDir)) {
      const text = fs.readFileSync(file, "utf8");
      for (const key of [east.keys.orgAdmin!, west.keys.orgKey!]) expect(text.includes(key), file).toBe(false);
    }
  });
});

/** Every file under `dir`, recursively. */
function filesIn(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesIn(p) : [p];
  });
}
