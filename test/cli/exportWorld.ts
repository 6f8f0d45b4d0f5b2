/**
 * The prelude of the tests of `pulumi-reviewadmin export` (test/cli/export.test.ts, and
 * test/engine/exportedProject.test.ts, which runs what it writes): one emulator per file, rate
 * limit off, a temporary folder, and the command run in this process with a key file of the
 * emulator's world, into fresh folders of that one.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { SEEDED, type RunningEmulator } from "../../emulator";
import { useEmulator } from "../support/emulatorHttp";
import { runCli } from "./runCli";

/** The scope flags that narrow an export the most (`narrow` is the project's name). */
export const NARROW = ["--org", "102", "--no-grants", "--no-invitations", "--no-identifiers", "--no-retain", "--project", "narrow"];

/**
 * The seeded world with Ada (the orgAdmin key's user, ORG_ADMIN of 102) made ORG_ADMIN of its three
 * other organizations too: 101 (the parent), 103 (its other sub-organization) and 104 (unrelated),
 * so that one key exports a firm of four organizations, parent and children included.
 */
export function adaAdministersEveryOrganization(emu: { store: RunningEmulator["store"] }): void {
  for (const org of [SEEDED.parentOrg, SEEDED.subOrg, SEEDED.otherOrg]) emu.store.members.seed(org, SEEDED.users.orgAdmin, ["ORG_ADMIN"]);
}

/** Registers the file's hooks; `label` names its temporary folder. */
export function useExportWorld(label: string) {
  const emu = useEmulator();
  let tmp = "";
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), `reviewadmin-${label}-`));
  });
  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });
  let keys = 0;
  let dirs = 0;

  /** A file holding the named key of the emulator's world (the keys change on reset). */
  const keyFile = (name: string): string => {
    const file = path.join(tmp, `key-${name}-${++keys}`);
    fs.writeFileSync(file, emu.keys[name]!);
    return file;
  };
  /** A fresh output folder path (not made). */
  const newDir = (name: string) => path.join(tmp, `${name}-${++dirs}`);
  /** A fresh output folder named `access` (not made): the project's default name, so that two exports compare byte for byte. */
  const newAccessDir = (name: string) => path.join(newDir(name), "access");
  /** Runs `export` with a key file of `key` and the emulator's URL. */
  const exportWith = (args: string[], key = "orgAdmin") =>
    runCli(["export", "--base-url", emu.url, "--api-key-file", keyFile(key), "--requests-per-second", "1000", ...args]);
  /** Exports into a new folder, expecting success; returns the folder. */
  const exported = async (name: string, args: string[] = []): Promise<string> => {
    const out = newAccessDir(name);
    const r = await exportWith(["--out", out, ...args]);
    expect(r, r.err).toMatchObject({ code: 0 });
    return out;
  };
  return { emu, tmp: () => tmp, newDir, newAccessDir, exportWith, exported };
}
