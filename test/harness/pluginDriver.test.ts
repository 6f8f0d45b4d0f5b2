/**
 * Proves the plugin harness: a small file-backed provider, serialized like dynamic.Resource
 * does, runs in the real dynamic-provider plugin and every RPC is exercised.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PluginError, serializeProvider, startPlugin, type Plugin } from "../../harness/pluginDriver";
import { ResourceDriver } from "../../harness/resourceDriver";
import { CheckFailedError } from "../../harness/engineSteps";
import { PROVIDER_KEY, UNKNOWN } from "../../harness/wire";

const repoRoot = path.resolve(__dirname, "../..");
const TYPE = "pulumi-nodejs:dynamic/harness:Thing";

/**
 * Keeps one JSON file per resource in `dir`. Its methods use no imported bindings (vitest
 * rewrites those into `__vite_ssr_import_N__`, which the serializer captures by value and fails
 * on for Node built-ins): built-ins are required inside the methods, in the plugin process.
 * Type-only references (pulumi.dynamic.*) are erased and harmless.
 */
class FileProvider implements pulumi.dynamic.ResourceProvider {
  apiKey: string | undefined;
  region: string | undefined;

  constructor(readonly dir: string) {}

  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    this.apiKey = req.config.get("reviewadmin:apiKey");
    // No namespace: the plugin prefixes the project name (PULUMI_NODEJS_PROJECT).
    this.region = req.config.get("region");
  }

  async check(_olds: any, news: any): Promise<pulumi.dynamic.CheckResult> {
    const failures = [];
    if (typeof news.name !== "string" || news.name === "") {
      failures.push({ property: "name", reason: "name is required" });
    }
    // Defaults are filled in check, as a real provider would.
    return { inputs: { ...news, size: news.size ?? 1 }, failures };
  }

  async diff(_id: string, olds: any, news: any): Promise<pulumi.dynamic.DiffResult> {
    const replaces = olds.name !== news.name ? ["name"] : [];
    return {
      changes: olds.name !== news.name || olds.size !== news.size,
      replaces,
      deleteBeforeReplace: news.deleteFirst === true,
    };
  }

  async create(inputs: any): Promise<pulumi.dynamic.CreateResult> {
    const fs = require("node:fs");
    const path = require("node:path");
    if (inputs.name === "boom") throw new Error("boom: the API refused");
    if (inputs.name === "half") {
      // Partial failure: the plugin sends ErrorResourceInitFailed with this id.
      throw Object.assign(new Error("half-created"), { id: "half-1", properties: { name: "half" } });
    }
    const id = `${inputs.name}-${require("node:crypto").randomUUID()}`;
    const data = { name: inputs.name, size: inputs.size };
    fs.writeFileSync(path.join(this.dir, `${id}.json`), JSON.stringify(data));
    console.log(`created ${id}`);
    return {
      id,
      outs: { ...data, createdAt: "t0", seenKey: this.apiKey ?? null, region: this.region ?? null },
    };
  }

  async read(id: string, props: any): Promise<pulumi.dynamic.ReadResult> {
    const fs = require("node:fs");
    const file = require("node:path").join(this.dir, `${id}.json`);
    if (!fs.existsSync(file)) return {};
    const data = JSON.parse(fs.readFileSync(file, "utf8"));
    return { id, props: { ...props, ...data }, inputs: { name: data.name, size: data.size } };
  }

  async update(id: string, olds: any, news: any): Promise<pulumi.dynamic.UpdateResult> {
    const fs = require("node:fs");
    const data = { name: news.name, size: news.size };
    // pulumi.log has no engine in the plugin: it falls back to the console (stderr for warn).
    require("@pulumi/pulumi").log.warn(`updating ${id}`);
    fs.writeFileSync(require("node:path").join(this.dir, `${id}.json`), JSON.stringify(data));
    // Outputs computed at create (createdAt) must survive an update.
    return { outs: { ...olds, ...data } };
  }

  async delete(id: string, _props: any): Promise<void> {
    const fs = require("node:fs");
    const path = require("node:path");
    fs.rmSync(path.join(this.dir, `${id}.json`), { force: true });
    fs.appendFileSync(path.join(this.dir, "deleted.log"), `${id}\n`);
  }
}

describe("plugin harness", () => {
  let plugin: Plugin;
  let dir: string;
  let serialized: string;

  const deleted = () => {
    const f = path.join(dir, "deleted.log");
    return fs.existsSync(f) ? fs.readFileSync(f, "utf8").trim().split("\n") : [];
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-"));
    serialized = await serializeProvider(new FileProvider(dir));
    plugin = await startPlugin({
      cwd: repoRoot,
      project: "harness-proj",
      stack: "dev",
      config: { "reviewadmin:apiKey": "s3cret-key", "harness-proj:region": "eu-1" },
      secretConfigKeys: ["reviewadmin:apiKey"],
    });
  });

  afterAll(async () => {
    await plugin?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("serializes the test-defined provider without vitest import bindings", () => {
    expect(serialized).toContain("exports.handler");
    expect(serialized).not.toContain("__vite_ssr_import");
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules/@pulumi/pulumi/package.json"), "utf8"));
    expect(plugin.version).toBe(pkg.version);
  });

  it("returns check failures, and lets unknown values pass", async () => {
    const urn = plugin.urn(TYPE, "x");
    expect(urn).toBe(`urn:pulumi:dev::harness-proj::${TYPE}::x`);
    const bad = await plugin.check(urn, {}, { name: "", [PROVIDER_KEY]: serialized });
    expect(bad.failures).toEqual([{ property: "name", reason: "name is required" }]);

    const unknown = await plugin.check(urn, {}, { name: UNKNOWN, size: UNKNOWN, [PROVIDER_KEY]: serialized });
    expect(unknown.failures).toEqual([]);
    expect(unknown.inputs).toMatchObject({ name: UNKNOWN, size: UNKNOWN, [PROVIDER_KEY]: serialized });

    const driver = new ResourceDriver(plugin, TYPE, "bad", serialized);
    await expect(driver.up({ name: "" })).rejects.toThrow(CheckFailedError);
    expect(driver.state).toBeUndefined();
  });

  it("creates, updates, replaces, refreshes and destroys through the driver", async () => {
    const d = new ResourceDriver(plugin, TYPE, "thing", serialized);

    const created = await d.up({ name: "a" });
    expect(created.op).toBe("create");
    expect(created.id).toMatch(/^a-/);
    // check's default, configure's decrypted secret and project-namespaced config reach create.
    expect(created.outs).toMatchObject({ name: "a", size: 1, createdAt: "t0", seenKey: "s3cret-key", region: "eu-1" });
    expect(created.outs[PROVIDER_KEY]).toBe(serialized);
    expect(created.inputs[PROVIDER_KEY]).toBe(serialized);
    expect(await plugin.waitForLog(`created ${created.id}`)).toEqual({ stream: "stdout", line: `created ${created.id}` });

    // Preview with an unknown value: check and diff run, nothing is applied.
    const planned = await d.preview({ name: "a", size: UNKNOWN });
    expect(planned.op).toBe("update");
    expect(planned.check.inputs.size).toBe(UNKNOWN);
    expect(d.state?.inputs.size).toBe(1);

    const same = await d.up({ name: "a", size: 1 });
    expect(same.op).toBe("same");
    expect(same.diff?.changes).toBe(false);

    const updated = await d.up({ name: "a", size: 2 });
    expect(updated.op).toBe("update");
    expect(updated.id).toBe(created.id);
    expect(updated.outs).toMatchObject({ size: 2, createdAt: "t0" });
    expect((await plugin.waitForLog(`updating ${created.id}`)).stream).toBe("stderr");

    // Changing the name replaces: create-before-delete by default.
    const replaced = await d.up({ name: "b", size: 2 });
    expect(replaced.op).toBe("replace");
    expect(replaced.diff?.replaces).toEqual(["name"]);
    expect(replaced.diff?.deleteBeforeReplace).toBe(false);
    expect(replaced.id).toMatch(/^b-/);
    expect(deleted()).toEqual([created.id]);

    // deleteBeforeReplace is honoured too.
    const dbr = await d.up({ name: "c", size: 2, deleteFirst: true });
    expect(dbr.op).toBe("replace");
    expect(dbr.diff?.deleteBeforeReplace).toBe(true);
    expect(deleted()).toEqual([created.id, replaced.id]);

    // Drift: read returns new outputs and inputs; the next up with those inputs is a no-op.
    fs.writeFileSync(path.join(dir, `${dbr.id}.json`), JSON.stringify({ name: "c", size: 5 }));
    const refreshed = await d.refresh();
    expect(refreshed?.outputs).toMatchObject({ size: 5, createdAt: "t0" });
    expect(refreshed?.inputs).toEqual({ name: "c", size: 5, [PROVIDER_KEY]: serialized });
    expect((await d.up({ name: "c", size: 5 })).op).toBe("same");

    await d.destroy();
    expect(d.state).toBeUndefined();
    expect(deleted()).toEqual([created.id, replaced.id, dbr.id]);
  });

  it("treats read returning {} as gone", async () => {
    const d = new ResourceDriver(plugin, TYPE, "vanishing", serialized);
    const { id } = await d.up({ name: "v" });
    fs.rmSync(path.join(dir, `${id}.json`));
    const raw = await plugin.read(id, d.urn, d.state!.outputs, d.state!.inputs);
    expect(raw.id).toBeUndefined();
    expect(await d.refresh()).toBeUndefined();
    expect(d.state).toBeUndefined();
  });

  it("surfaces provider errors with the provider's message", async () => {
    const d = new ResourceDriver(plugin, TYPE, "boom", serialized);
    const err = await d.up({ name: "boom" }).catch((e) => e);
    expect(err).toBeInstanceOf(PluginError);
    expect(err.message).toBe("boom: the API refused");
    expect(err.rpc).toBe("create");
    expect(d.state).toBeUndefined();

    // A partial create keeps the half-created resource in state, as the engine does.
    const half = new ResourceDriver(plugin, TYPE, "half", serialized);
    const herr = await half.up({ name: "half" }).catch((e) => e);
    expect(herr.message).toBe("half-created");
    expect(herr.initFailure).toMatchObject({ id: "half-1", properties: { name: "half" } });
    expect(half.state?.id).toBe("half-1");

    // Errors from RPCs without special handling (here a bad __provider) also carry the text.
    await expect(plugin.check(d.urn, {}, { name: "x", [PROVIDER_KEY]: "throw new Error('bad provider text')" })).rejects.toThrow(
      "bad provider text",
    );
  });
});
