/**
 * Dataset and SourceFile in a program run by the real engine: the dataset's id flows into the
 * source file, and the passwords are secret in the state and in `pulumi stack export`. Each
 * resource stepped through its operations against the emulator: test/resources/upload.test.ts.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { Dataset, SourceFile } from "../../provider";
import { writePatternedFile } from "../support/files";
import { useProgramWorld } from "../support/programWorld";

const DB = SEEDED.databases.open;
const world = useProgramWorld("uploads");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "upload-program-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("Dataset and SourceFile in a program", () => {
  it("the dataset id flows into the source file, and passwords and the link are secret in state", async () => {
    const { file } = writePatternedFile(dir, "program.eml", 1000, 5);
    const stack = world.freshStack();
    world.emu.store.configureUploads({ processingDelayMs: 20 });
    const result = await stack.up(() => {
      const ds = new Dataset("program-ds", { databaseId: DB, name: "From a program", timezone: "Asia/Tokyo" });
      const sf = new SourceFile("program-sf", { databaseId: DB, datasetId: ds.datasetId, path: file, passwords: ["pw1", "pw2"] });
      return {
        sourceFileId: sf.sourceFileId,
        datasetId: ds.datasetId,
        filename: sf.filename,
        passwordsAreSecret: pulumi.isSecret(sf.passwords),
      };
    });
    expect(result.outputs.datasetId).toBe(stack.find("program-ds")!.outputs.datasetId);
    expect(result.outputs).toMatchObject({ filename: "program.eml", passwordsAreSecret: true });
    const sf = stack.find("program-sf")!;
    expect(sf.outputs).toMatchObject({ datasetId: result.outputs.datasetId, passwords: ["pw1", "pw2"], complete: true });
    expect(sf.secretKeys).toEqual(expect.arrayContaining(["passwords"]));
    // `pulumi stack export` (without --show-secrets) shows them as ciphertext only.
    const exported = await stack.cli(["stack", "export"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('"passwords"');
    expect(exported.stdout).not.toContain("pw1");
    expect(world.emu.store.uploads.sourceFile(DB, sf.outputs.sourceFileId as number).datasetId).toBe(result.outputs.datasetId);
  });
});
