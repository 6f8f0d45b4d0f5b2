/**
 * The examples as files: each one's Pulumi.yaml (its name, the nodejs runtime, its index.ts as
 * main), the repository's own Pulumi.yaml, and `npm run demo`'s usage and what it says on a
 * machine without the Pulumi CLI. Plain values: the examples run under the real engine in
 * test/engine/examples.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { main, USAGE } from "../demo";
import { withoutPulumiCli } from "./support/withoutPulumiCli";

const repoRoot = path.resolve(__dirname, "..");
const EXAMPLES = ["access-baseline", "access-review", "custodian-sync", "walls-from-file"];

describe("example projects", () => {
  /** The top-level `key: value` lines of a Pulumi.yaml (enough for these flat files). */
  const yamlKeys = (file: string) =>
    Object.fromEntries([...fs.readFileSync(file, "utf8").matchAll(/^([a-z]+):[ \t]*(.*)$/gm)].map((m) => [m[1], m[2].trim()]));

  it.each(EXAMPLES)("%s has a Pulumi.yaml (name, nodejs runtime, description) whose main is its index.ts", (example) => {
    const dir = path.join(repoRoot, "examples", example);
    const keys = yamlKeys(path.join(dir, "Pulumi.yaml"));
    expect(keys.name).toBe(example);
    expect(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8")).toMatch(/^runtime:\s*\n\s+name: nodejs$/m);
    expect(keys.description).toBeTruthy();
    // A folder as main would run package.json's entry point (the provider), not the program.
    expect(keys.main).toBe("index.ts");
    expect(fs.existsSync(path.join(dir, "index.ts"))).toBe(true);
  });

  it("the repository's Pulumi.yaml runs the access-baseline program", () => {
    const keys = yamlKeys(path.join(repoRoot, "Pulumi.yaml"));
    expect(keys.main).toBe("examples/access-baseline/index.ts");
    expect(keys.name).toBe("access-baseline");
  });
});

describe("npm run demo", () => {
  it("--help prints the usage; an unknown option is refused", async () => {
    let out = "";
    expect(await main(["--help"], (t) => (out += t))).toBe(0);
    expect(out).toBe(USAGE);
    out = "";
    expect(await main(["--bogus"], (t) => (out += t))).toBe(2);
    expect(out).toContain("Unknown option --bogus");
  });

  it("without the Pulumi CLI: one line saying how to get it, exit code 1, nothing started", async () => {
    let out = "";
    const code = await withoutPulumiCli(() => main([], (t) => (out += t)));
    expect(out).toBe(
      "npm run demo runs under the Pulumi CLI, and the Pulumi CLI is not on PATH nor built: run `npm run pulumi-cli` " +
        "(builds it from source, needs Go >= 1.26) or install the Pulumi CLI (see README.md).\n",
    );
    expect(code).toBe(1);
  });
});
