/**
 * The Python SDK of the plugin face, as a Python user makes one: the schema from the plugin
 * (`pulumi package get-schema`), the SDK from the schema (`pulumi package gen-sdk --language
 * python`, which asks the Python language host that tools/pulumi-cli builds), every file compiled
 * by python3. Running a Python program needs the `pulumi` package from PyPI, which this machine
 * cannot reach (tools/pulumi-cli/README.md); the Go program (goProgram.test.ts) and YAML programs
 * prove the plugin face's runs.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runAsync } from "../../harness/runAsync";
import { missingTool, skipWithoutEngine } from "../support/engine";
import { programFolder } from "../support/providerWorld";

const PLUGIN = path.resolve(__dirname, "../../plugin/pulumi-resource-reviewadmin");

/** Why the SDK cannot be generated on this machine (no Python host beside the CLI, or no python3), if so. */
const NO_PYTHON = missingTool({
  "pulumi-language-python": "tools/pulumi-cli/build.sh builds it beside the CLI",
  python3: "the generated SDK is compiled by it: install python3",
});
skipWithoutEngine("python sdk");

/** Every file under `dir` ending in `ext`, relative to it, sorted. */
function filesIn(dir: string, ext: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(ext)).sort();
}

describe("the Python SDK of the plugin face", () => {
  // Skipped only on a machine without python3 or the Python host (the reason is printed); CI builds the host and fails instead.
  it.skipIf(!!NO_PYTHON)("is generated from the schema, names every resource, and compiles", { timeout: 300_000 }, async () => {
    const dir = programFolder("python-sdk-");
    const pulumi = async (...args: string[]) => {
      const r = await runAsync("pulumi", [...args, "--non-interactive", "--color", "never"], {
        cwd: dir,
        env: { PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_HOME: path.join(dir, ".pulumi") },
      });
      expect(r.code, `pulumi ${args.join(" ")}\n${r.stdout}\n${r.stderr}`).toBe(0);
      return r.stdout;
    };
    fs.writeFileSync(path.join(dir, "schema.json"), await pulumi("package", "get-schema", PLUGIN));
    const schema = JSON.parse(fs.readFileSync(path.join(dir, "schema.json"), "utf8")) as { resources: Record<string, unknown> };
    await pulumi("package", "gen-sdk", "schema.json", "--language", "python", "--out", "sdk");

    const pkg = path.join(dir, "sdk", "python", "pulumi_reviewadmin");
    const plugin = JSON.parse(fs.readFileSync(path.join(pkg, "pulumi-plugin.json"), "utf8"));
    expect(plugin).toMatchObject({ resource: true, name: "reviewadmin" });
    // One class per resource of the schema, named as the token names it.
    const code = filesIn(pkg, ".py")
      .map((f) => fs.readFileSync(path.join(pkg, f), "utf8"))
      .join("\n");
    for (const token of Object.keys(schema.resources)) {
      const name = token.split(":").pop()!;
      expect(code, token).toContain(`class ${name}(pulumi.CustomResource):`);
    }
    expect(code).toContain("def get_organization(");
    const files = filesIn(pkg, ".py");
    expect(files.length).toBeGreaterThan(20);
    const compiled = spawnSync("python3", ["-m", "py_compile", ...files], { cwd: pkg, encoding: "utf8" });
    expect(compiled.stderr).toBe("");
    expect(compiled.status).toBe(0);
  });
});
