/**
 * Issue 14: the engine takes gRPC messages up to 400 MiB, where a grpc-js client defaults to
 * 4 MiB ("Received message larger than max (6223398 vs 4194304)" for a roster adopting 28,000
 * members). A property larger than 4 MiB must go through the real plugin both ways, and the
 * harness's limit must be the one the SDK gives its own channels.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serializeProvider, startPlugin, type Plugin } from "../../harness/pluginDriver";
import { ResourceDriver } from "../../harness/resourceDriver";
import { ENGINE_MAX_MESSAGE_BYTES } from "../../harness/wire";
import { provider } from "./fixtures/file-provider.cjs";

const repoRoot = path.resolve(__dirname, "../..");
const TYPE = "pulumi-nodejs:dynamic/harness:Thing";
const MiB = 1024 * 1024;

/** A text of `mib` MiB (32-byte lines, all different) followed by `tail`. */
const bigText = (mib: number, tail: string) =>
  Array.from({ length: (mib * MiB) / 32 }, (_, i) => `member-${String(i).padStart(8, "0")}@example.invalid\n`).join("") + tail;

describe("large messages (issue 14)", () => {
  let plugin: Plugin;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-large-"));
    plugin = await startPlugin({ cwd: repoRoot, project: "harness-proj", stack: "dev", config: { "harness:dataDir": dir } });
  });

  afterAll(async () => {
    await plugin?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("uses the engine's limit, the one the SDK gives its own gRPC channels", () => {
    const settings = createRequire(__filename)("@pulumi/pulumi/runtime/settings");
    expect(ENGINE_MAX_MESSAGE_BYTES).toBe(400 * MiB);
    expect(settings.grpcChannelOptions["grpc.max_receive_message_length"]).toBe(ENGINE_MAX_MESSAGE_BYTES);
  });

  it("round-trips a property larger than 4 MiB through check, create, read and delete", async () => {
    const d = new ResourceDriver(plugin, TYPE, "roster", await serializeProvider(provider));
    const label = bigText(5, "end");
    expect(label.length).toBeGreaterThan(4 * MiB);

    // Check answers with the inputs and Create with the outputs: both replies exceed 4 MiB.
    const created = await d.up({ name: "roster", label });
    expect(created.op).toBe("create");
    expect(created.outs.label === label).toBe(true); // not toBe(label): a failure would print megabytes
    expect(JSON.parse(fs.readFileSync(path.join(dir, `${created.id}.json`), "utf8")).label === label).toBe(true);

    // Read sends and receives the large outputs and inputs.
    const refreshed = await d.refresh();
    expect(refreshed?.outputs.label === label).toBe(true);
    expect(refreshed?.inputs.label === label).toBe(true);

    // Delete sends them once more. Update is left out: it goes through the same channel, and
    // each message this large costs about a second of protobuf and JSON work.
    await d.destroy();
    expect(fs.existsSync(path.join(dir, `${created.id}.json`))).toBe(false);
  });
});
