/**
 * Proves the program harness: a program declaring file-backed dynamic resources (provider in a
 * CommonJS fixture, so it serializes as real JS) runs under setMocks, its dynamic resources go
 * to the real plugin, and up / up / preview / refresh / destroy behave like the CLI.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, describe, it } from "vitest";
import { ProgramStack, RunError, type RunResult } from "../../harness/program/stack";
import { PROVIDER_KEY } from "../../harness/wire";
import { Thing } from "./fixtures/file-provider.cjs";

const repoRoot = path.resolve(__dirname, "../..");
const TYPE = "pulumi-nodejs:dynamic/harness:Thing";

interface Spec {
  size?: number;
  label?: string;
  /** Label taken from the id of an earlier Thing of the same program (unknown in preview if new). */
  labelFrom?: string;
  secretLabel?: boolean;
  exclusive?: boolean;
  name?: string;
}

/** A program declaring one Thing per entry of `things`, exporting ids and the config it saw. */
function program(things: Record<string, Spec>) {
  return async () => {
    const cfg = new pulumi.Config("reviewadmin");
    const out: Record<string, any> = { baseUrl: cfg.get("baseUrl"), project: pulumi.getProject(), stack: pulumi.getStack() };
    const made: Record<string, Thing> = {};
    for (const [name, spec] of Object.entries(things)) {
      let label: pulumi.Input<string> | undefined = spec.labelFrom ? made[spec.labelFrom]!.id : spec.label;
      if (spec.secretLabel && label !== undefined) label = pulumi.secret(label);
      const t = new Thing(name, { name: spec.name ?? name, size: spec.size, label, exclusive: spec.exclusive });
      made[name] = t;
      out[`${name}Id`] = t.id;
      out[`${name}Size`] = t.size;
      if (spec.secretLabel) out[`${name}LabelIsSecret`] = pulumi.isSecret(t.label);
    }
    return out;
  };
}

const ops = (result: RunResult) => Object.fromEntries(result.steps.map((s) => [s.name, s.op]));

// The tests are independent (own stack, own data directory). They also pass under
// describe.concurrent (several stacks running programs at once in one process, one store per
// run), but on two cores that is slower than running them one after the other.
describe("program harness", () => {
  const dirs: string[] = [];
  const stacks: ProgramStack[] = [];

  /** A fresh stack (empty state) over a fresh data directory, with helpers to look at it. */
  const setup = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "program-harness-"));
    dirs.push(dir);
    const stack = new ProgramStack({
      cwd: repoRoot,
      project: "harness-proj",
      stack: "dev",
      config: { "harness:dataDir": dir, "reviewadmin:baseUrl": "http://127.0.0.1:9" },
    });
    stacks.push(stack);
    const opsLog = () => {
      const f = path.join(dir, "ops.log");
      return fs.existsSync(f) ? fs.readFileSync(f, "utf8").trim().split("\n").filter(Boolean) : [];
    };
    const files = () =>
      fs
        .readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .sort();
    return { dir, stack, opsLog, files };
  };

  afterAll(async () => {
    for (const s of stacks) await s.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it("runs a CLI-like lifecycle: up, up, update, delete, preview, refresh, destroy", async ({ expect }) => {
    const { dir, stack, opsLog, files } = setup();
    // First up: creates the three resources through the real plugin.
    const first = await stack.up(program({ alpha: {}, beta: { size: 3 }, gamma: { label: "g" } }));
    expect(ops(first)).toEqual({ alpha: "create", beta: "create", gamma: "create" });
    expect(first.changes).toBe(3);
    expect(first.outputs).toMatchObject({
      baseUrl: "http://127.0.0.1:9",
      project: "harness-proj",
      stack: "dev",
      betaSize: 3,
      alphaSize: 1,
    });
    expect(first.outputs.alphaId).toMatch(/^alpha-/);
    expect(files()).toHaveLength(3);
    const alpha = stack.find("alpha")!;
    expect(alpha.urn).toBe(`urn:pulumi:dev::harness-proj::${TYPE}::alpha`);
    expect(alpha.outputs).toMatchObject({ name: "alpha", size: 1, label: null });
    expect(alpha.outputs.createdAt).toEqual(expect.any(String));
    expect(alpha.inputs[PROVIDER_KEY]).toContain("exports.handler");
    expect(first.logs.some((l) => l.line === `created ${first.outputs.alphaId}`)).toBe(true);

    // Same program again: nothing to do, outputs kept.
    const second = await stack.up(program({ alpha: {}, beta: { size: 3 }, gamma: { label: "g" } }), { expectNoChanges: true });
    expect(ops(second)).toEqual({ alpha: "same", beta: "same", gamma: "same" });
    expect(second.changes).toBe(0);
    expect(second.outputs.alphaId).toBe(first.outputs.alphaId);
    expect(opsLog()).toHaveLength(3);

    // Changing an input updates in place.
    const third = await stack.up(program({ alpha: {}, beta: { size: 4 }, gamma: { label: "g" } }));
    expect(ops(third)).toEqual({ alpha: "same", beta: "update", gamma: "same" });
    expect(third.steps.find((s) => s.name === "beta")?.changedKeys).toEqual(["size"]);
    expect(stack.find("beta")?.outputs).toMatchObject({ size: 4, createdAt: stack.find("beta")?.outputs.createdAt });
    expect(third.outputs.betaSize).toBe(4);

    // Preview of a removal, a change and creates: check/diff only, no create/update/delete
    // call; epsilon's label comes from delta's id, unknown during preview (the sentinel reaches check).
    const before = opsLog().length;
    const planned = await stack.preview(program({ alpha: { size: 9 }, beta: { size: 4 }, delta: {}, epsilon: { labelFrom: "delta" } }));
    expect(ops(planned)).toEqual({ alpha: "update", beta: "same", delta: "create", epsilon: "create", gamma: "delete" });
    expect(planned.changes).toBe(4);
    expect(opsLog()).toHaveLength(before);
    expect(stack.find("alpha")?.inputs.size).toBe(1);
    expect(stack.find("delta")).toBeUndefined();

    // Removing a resource from the program deletes it (after the program ran). A secret input
    // reaches the provider in plain text and its output comes back secret, as with the engine.
    const gammaId = stack.find("gamma")!.id;
    const fourth = await stack.up(program({ alpha: {}, beta: { size: 4 }, delta: { label: "hush", secretLabel: true } }));
    expect(ops(fourth)).toEqual({ alpha: "same", beta: "same", delta: "create", gamma: "delete" });
    expect(opsLog().at(-1)).toBe(`delete ${gammaId}`);
    expect([...stack.state.values()].map((s) => s.name)).toEqual(["alpha", "beta", "delta"]);
    expect(stack.find("delta")).toMatchObject({ secretKeys: ["label"], outputs: { label: "hush" } });
    expect(fourth.outputs.deltaLabelIsSecret).toBe(true);

    // Changed behind the program's back: refresh reports it and takes the new values.
    const betaId = stack.find("beta")!.id;
    fs.writeFileSync(path.join(dir, `${betaId}.json`), JSON.stringify({ name: "beta", size: 7, label: "drift" }));
    const refreshed = await stack.refresh();
    expect(ops(refreshed)).toEqual({ alpha: "refresh-same", beta: "refresh-changed", delta: "refresh-same" });
    expect(refreshed.changes).toBe(1);
    expect(refreshed.steps.find((s) => s.name === "beta")).toMatchObject({
      changedKeys: ["label", "size"],
      changedInputKeys: ["label", "size"],
    });
    expect(stack.find("beta")?.outputs).toMatchObject({ size: 7, label: "drift" });
    expect(stack.find("beta")?.inputs).toMatchObject({ size: 7, label: "drift" });
    // The program still says size 4 and no label: the next up puts it back. In the same run,
    // name changes replace: alpha with deleteBeforeReplace (from the provider's diff), delta
    // create-before-delete, its old instance deleted at the end of the run.
    const alphaId = stack.find("alpha")!.id;
    const deltaId = stack.find("delta")!.id;
    const fifth = await stack.up(
      program({
        alpha: { name: "alpha2", exclusive: true },
        beta: { size: 4 },
        delta: { name: "delta2", label: "hush", secretLabel: true },
      }),
    );
    expect(ops(fifth)).toEqual({ alpha: "replace", beta: "update", delta: "replace" });
    expect(JSON.parse(fs.readFileSync(path.join(dir, `${betaId}.json`), "utf8"))).toEqual({ name: "beta", size: 4, label: null });
    expect(fifth.steps.find((s) => s.name === "alpha")?.diff).toMatchObject({ replaces: ["name"], deleteBeforeReplace: true });
    const newAlphaId = stack.find("alpha")!.id;
    const newDeltaId = stack.find("delta")!.id;
    expect(newAlphaId).toMatch(/^alpha2-/);
    expect(newDeltaId).toMatch(/^delta2-/);
    const log = opsLog();
    expect(log.indexOf(`delete ${alphaId}`)).toBeLessThan(log.indexOf(`create ${newAlphaId}`));
    expect(log.indexOf(`create ${newDeltaId}`)).toBeLessThan(log.indexOf(`delete ${deltaId}`));
    expect(log.at(-1)).toBe(`delete ${deltaId}`);

    // Deleted behind the program's back: refresh drops it.
    fs.rmSync(path.join(dir, `${betaId}.json`));
    const refreshed2 = await stack.refresh();
    expect(ops(refreshed2)).toEqual({ alpha: "refresh-same", beta: "refresh-gone", delta: "refresh-same" });
    // The fixture's Read reports inputs without `exclusive`: stored inputs are rewritten.
    expect(refreshed2.steps.find((s) => s.name === "alpha")?.changedInputKeys).toEqual(["exclusive"]);
    expect(stack.find("beta")).toBeUndefined();

    // Destroy empties the state; independent resources are deleted in parallel, as the engine does.
    expect([...stack.state.values()].map((s) => s.name)).toEqual(["delta", "alpha"]);
    const destroyed = await stack.destroy();
    expect(destroyed.steps.map((s) => `${s.op} ${s.name}`).sort()).toEqual(["delete alpha", "delete delta"]);
    expect(stack.state.size).toBe(0);
    expect(files()).toEqual([]);
  });

  it("fails the run with the provider's check message and leaves the state alone", async ({ expect }) => {
    const { stack, opsLog } = setup();
    await stack.up(program({ one: {} }));
    const creates = opsLog().length;
    // `one` is no longer declared and `two` fails its check: the run fails with the provider's
    // message, and a failed run skips deletes, so `one` survives.
    const err = await stack.up(program({ two: { size: 500 } })).catch((e) => e);
    expect(err).toBeInstanceOf(RunError);
    expect(err.message).toContain("size: size must be at most 100, got 500");
    expect((err as RunError).result.errors).toEqual([
      `urn:pulumi:dev::harness-proj::${TYPE}::two: check failed: size: size must be at most 100, got 500`,
    ]);
    expect((err as RunError).result.steps).toEqual([]);
    expect(stack.find("one")).toBeDefined();
    expect(stack.find("two")).toBeUndefined();
    expect(opsLog()).toHaveLength(creates);

    // A provider error fails the run with the provider's message; the resource depending on
    // the failed one is not created (the engine stops), and no promise rejects unhandled.
    const err2 = await stack.up(program({ one: {}, boom: {}, after: { labelFrom: "boom" } })).catch((e) => e);
    expect(err2).toBeInstanceOf(RunError);
    expect((err2 as RunError).result.errors).toEqual(["boom: the API refused to create it"]);
    expect(ops((err2 as RunError).result)).toEqual({ one: "same" });
    expect(stack.find("after")).toBeUndefined();

    // A program error fails the run too.
    await expect(
      stack.up(async () => {
        throw new Error("program blew up");
      }),
    ).rejects.toThrow(/program blew up/);
    expect(stack.find("one")).toBeDefined();

    await stack.destroy();
    expect(stack.state.size).toBe(0);
  });

  it("runs an example folder's index as the program, again on every run", async ({ expect }) => {
    const { stack } = setup();
    const example = path.join(__dirname, "fixtures/example");
    stack.setConfig("harness:label", "from-config");
    const first = await stack.up(example);
    expect(ops(first)).toEqual({ "ex-alpha": "create" });
    expect(first.outputs).toMatchObject({ alphaSize: 2, label: "from-config" });
    const second = await stack.up(example);
    expect(ops(second)).toEqual({ "ex-alpha": "same" });
    expect(second.outputs.alphaId).toBe(first.outputs.alphaId);
    const third = await stack.up(example, { config: { "harness:size": "5" } });
    expect(ops(third)).toEqual({ "ex-alpha": "update" });
    expect(third.outputs.alphaSize).toBe(5);
    await stack.destroy();
    expect(stack.state.size).toBe(0);
  });
});
