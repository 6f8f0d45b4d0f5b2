/**
 * The run is a value (provider/resources/support/run.ts): provider/ keeps no state at a module's
 * top level, so one test process can serve many runs, each from a clean start. The lint rule
 * (eslint.config.mjs, no-restricted-syntax on provider/**) refuses a top-level `let`, an empty
 * Map/Set/WeakMap/WeakSet and any use of globalThis; the few stores that must live in the process
 * say why beside them, and this file names each, so a new one is a decision someone reads.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "../..");

/** The justified process-wide (or per-program-run) stores: `<file>: <the declaration's name>`. */
const NAMED = [
  "provider/client/client.ts: clients", // getClient's clients for a program's data sources and scripts
  "provider/client/pacer.ts: pacers", // the service limits each key, whatever the run
  "provider/client/routeTables.ts: tables", // each OpenAPI document read once
  "provider/client/transport.ts: undiciModule", // undici, loaded at the first request
  "provider/client/transport.ts: pools", // connections per origin, released by the last client
  "provider/data/dataSource.ts: dateBoxes", // a weak mark on boxes this module made
  "provider/pluginHost.ts: attached", // the plugin process's hooks into its host
  "provider/pluginHost.ts: engineLogFn", // the engine's Log service, from the process's argument
  "provider/pluginHost.ts: quietTexts", // errors already worded, dropped when printed
  "provider/resources/support/declarations.ts: indexes", // per program run, weakly keyed
  "provider/resources/support/declarations.ts: g", // per program run, by its stack resource
  "provider/resources/support/lifecycle.ts: compiledSchemas", // one compiled parser per schema
  "provider/runtime.ts: served", // the dynamic plugin's one run per process
  "provider/settings.ts: g", // a program warns about its config once
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return e.name.endsWith(".ts") && !e.name.endsWith(".generated.ts") ? [rel] : [];
  });
}

describe("no run state at a module's top level in provider/", () => {
  it("the lint rule refuses a top-level let, an empty store and globalThis in provider/", async () => {
    const eslint = new ESLint({ cwd: root });
    const text = [
      "let runIsPreview = false;",
      "export let current: string | undefined;",
      "const seen = new Set<string>();",
      "const byKey = new Map<string, number>();",
      "const LOOKUP = new Set(['a', 'b']);",
      "(globalThis as Record<string, unknown>).slot = {};",
      "export function f(): void { let local = 1; local += 1; void [runIsPreview, current, seen, byKey, LOOKUP, local]; }",
      "",
    ].join("\n");
    const [result] = await eslint.lintText(text, { filePath: path.join(root, "provider/example.ts") });
    const lines = result!.messages.filter((m) => m.ruleId === "no-restricted-syntax").map((m) => m.line);
    // The constant lookup table (line 5) and the function's own `let` (line 7) are fine.
    expect(lines).toEqual([1, 2, 3, 4, 6]);
  });

  it("every store that stays is one of the named ones, each with its reason beside it", () => {
    const found: string[] = [];
    for (const file of sourceFiles("provider")) {
      const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
      lines.forEach((line, i) => {
        if (!line.includes("eslint-disable-next-line no-restricted-syntax")) return;
        expect(line, `${file}:${i + 1} gives no reason`).toMatch(/ -- \S.{10,}/);
        const name = /(?:let|const)\s+(\w+)/.exec(lines[i + 1] ?? "")?.[1];
        found.push(`${file}: ${name}`);
      });
    }
    expect(found.sort()).toEqual([...NAMED].sort());
  });
});
