/**
 * The tiers of vitest.config.ts (unit, service, engine: test/README.md), read as vitest reads
 * their include and exclude: every test file is in exactly one (a new file in a folder no tier
 * names, or one two tiers both take, fails here with its name), every file a tier names by path
 * exists, and only the engine tier builds dist/ and looks for the Pulumi CLI before it runs. The
 * cheaper tiers start no plugin process and no engine: their files use none of the harness's ways
 * of starting one, so `npm test` starts none (resource tests use the in-process driver).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import config from "../vitest.config";

const repoRoot = path.resolve(__dirname, "..");

interface Tier {
  name: string;
  include: string[];
  exclude: string[];
  globalSetup: string[];
}

const tiers: Tier[] = (config.test?.projects ?? []).map((project) => {
  if (typeof project !== "object" || project instanceof Promise || !project.test) throw new Error("a tier is an inline project config");
  const { name, include = [], exclude = [], globalSetup = [] } = project.test;
  return { name: typeof name === "string" ? name : String(name?.label), include, exclude, globalSetup: [globalSetup].flat() };
});

const matches = (file: string, globs: string[]) => globs.some((glob) => path.matchesGlob(file, glob));
const tiersOf = (file: string) => tiers.filter((t) => matches(file, t.include) && !matches(file, t.exclude)).map((t) => t.name);

describe("the test tiers", () => {
  it("are unit, service and engine", () => {
    expect(tiers.map((t) => t.name)).toEqual(["unit", "service", "engine"]);
  });

  it("hold every test file, each in exactly one", () => {
    const files = fs.globSync("test/**/*.test.ts", { cwd: repoRoot }).sort();
    expect(files.length).toBeGreaterThan(100);
    const wrong = files
      .map((file) => ({ file, in: tiersOf(file) }))
      .filter((f) => f.in.length !== 1)
      .map((f) => `${f.file} is in ${f.in.length === 0 ? "no tier" : `${f.in.join(" and ")}`}: list it in one tier (vitest.config.ts)`);
    expect(wrong).toEqual([]);
  });

  it("name by path only files that exist", () => {
    const named = tiers.flatMap((t) => [...t.include, ...t.exclude]).filter((glob) => glob.startsWith("test/") && !glob.includes("*"));
    expect(named.length).toBeGreaterThan(10);
    expect([...new Set(named)].filter((file) => !fs.existsSync(path.join(repoRoot, file)))).toEqual([]);
  });

  it("build dist/ and find the Pulumi CLI for the engine tier only", () => {
    expect(Object.fromEntries(tiers.map((t) => [t.name, t.globalSetup]))).toEqual({
      unit: [],
      service: [],
      engine: ["test/support/buildSetup.ts", "test/support/engineSetup.ts"],
    });
  });

  it("leave plugin processes, the engine and dist/ to the engine tier", () => {
    // What starts a plugin process or a program under the CLI, or loads the compiled package.
    const starts = /\b(startPlugin|PluginPool|useProgramWorld|EngineStack|requireDist)\b|process: true|\bdist\(\)/;
    const files = fs
      .globSync("test/**/*.test.ts", { cwd: repoRoot })
      .filter((file) => file !== "test/tiers.test.ts" && !tiersOf(file).includes("engine"));
    expect(files.length).toBeGreaterThan(80);
    const starting = files.filter((file) => starts.test(fs.readFileSync(path.join(repoRoot, file), "utf8")));
    expect(starting).toEqual([]);
  });
});
