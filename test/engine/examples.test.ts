/**
 * The examples as programs, run by the real Pulumi engine (the Automation API with each example's
 * own index.ts as the project's main, run by the Node.js language host in its folder) against a
 * fresh seeded emulator: up, a second up with no changes, drift injected through the emulator
 * found by refresh and repaired by up, destroy leaving the emulator as it was apart from what the
 * resources document as left in place; then all of it again with every route renamed by an
 * OpenAPI document on both sides; each example compiled by the build; and `npm run demo`'s main
 * under the engine. The examples' Pulumi.yaml files and what the demo says on a machine without
 * the CLI: test/examples.test.ts (plain values).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { openApiDocumentOf } from "../../contract/openapi";
import { main, SUCCESS_LINE } from "../../demo";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { EngineStack } from "../../harness/engineStack";
import { noEngine, skipWithoutEngine } from "../support/engine";
import { exampleScenarios, programOf, repoRoot } from "../support/exampleScenarios";

const EXAMPLES = ["access-baseline", "access-review", "custodian-sync", "walls-from-file"];

describe("example projects", () => {
  it.each(EXAMPLES)("%s is compiled by the build (dist/examples)", (example) => {
    expect(fs.existsSync(path.join(repoRoot, "dist/examples", example, "index.js"))).toBe(true);
  });
});

// Without the Pulumi CLI (no Go to build it) these skip, saying so (test/support/engine.ts).
exampleScenarios({ name: "engine", skip: !!noEngine, timeout: 300_000 });
// The renamed-routes run: the same scenarios, unchanged, with the emulator serving every
// operation on the paths of a vendor document where all of them differ from the built-in routes,
// and the provider configured with the same document (reviewadmin:openapi).
exampleScenarios({
  name: "engine, renamed routes",
  skip: !!noEngine,
  timeout: 300_000,
  openapi: path.join(repoRoot, "test/fixtures/openapi/renamed.yaml"),
});

describe("an OpenAPI document that cannot be used", () => {
  skipWithoutEngine("test/engine/examples.test.ts (an OpenAPI document that cannot be used)");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "examples-openapi-"));
  const broken = path.join(dir, "broken.yaml");
  const line = new RegExp(
    `reviewadmin: config reviewadmin:openapi names ${broken.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, which cannot be used: ` +
      "1 operation of the route table cannot be mapped: GetDatabaseUsers: not in the document \\(no operation has this operationId\\)\\. " +
      "Compare it with the built-in routes: npx --no-install pulumi-reviewadmin routes --openapi ",
  );
  let emu: RunningEmulator;
  beforeAll(async () => {
    const doc = openApiDocumentOf() as { paths: Record<string, unknown> };
    delete doc.paths["/v1/databases/{databaseId}/users"];
    fs.writeFileSync(broken, stringify(doc));
    emu = await startEmulator({ rateLimit: 0 });
  });
  afterAll(async () => {
    await emu?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  // Data sources read the program's config instead (test/client/openapi.test.ts).
  it("fails a resource's first operation (the plugin's configure) with the one line naming it, and sends nothing", async () => {
    const stack = new EngineStack({
      project: "custodian-sync",
      stack: "test",
      config: { "reviewadmin:baseUrl": emu.url, "reviewadmin:apiKey": emu.keys.orgAdmin, "reviewadmin:openapi": broken },
      secretConfigKeys: ["reviewadmin:apiKey"],
    });
    const before = emu.traffic.log.list().length;
    try {
      await expect(stack.up(programOf("custodian-sync"))).rejects.toThrow(line);
    } finally {
      await stack.close();
    }
    expect(emu.traffic.log.list().slice(before)).toEqual([]);
  });
});

describe("npm run demo", () => {
  // Skipped only without the Pulumi CLI (no Go to build it): test/support/engine.ts says why.
  it.skipIf(!!noEngine)(
    "with the Pulumi CLI (found on PATH or in the build cache): applies the baseline, finds the drift and repairs it",
    async () => {
      let out = "";
      const code = await main([], (t) => (out += t));
      const lines = out.trimEnd().split("\n");
      expect(code, out).toBe(0);
      expect(out).toContain("Pulumi CLI found");
      expect(lines.at(-1)).toBe(SUCCESS_LINE);
      expect(SUCCESS_LINE).toContain("drift found and repaired");
      expect(out).toContain('members["alan@northwind.example"].permissions: [] -> ["ORG_ADMIN"]');
      expect(out).toContain("Drift found in 2 of 5 resources: ken-db2001, members.");
      expect(out).toContain("~ member alan@northwind.example: permissions ORG_ADMIN -> (none)");
    },
    300_000,
  );
});
