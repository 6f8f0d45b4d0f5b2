/**
 * A csvPath that names a pipe or a device: the plugin checks the kind and size of the file before
 * reading it, and never reads past the limit. Before, a named pipe held the plugin (it waited for a
 * writer) and /dev/zero was read until memory ran out, both before the 190 MB check.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { useResourceWorld } from "../support/providerWorld";

const DIR = SEEDED.directories.org;
const { world, failuresOf } = useResourceWorld("CustodianDirectorySync");
const checkOf = (csvPath: string) =>
  world().run((run) => failuresOf(run, { directoryId: DIR, csvPath }, (f) => `${f.property} | ${f.reason}`));

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "csv-kinds-"));
});
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("a csvPath that is not a regular file", () => {
  it("refuses a named pipe by its kind, without waiting for a writer", { timeout: 20_000 }, async () => {
    const fifo = path.join(tmp, "people.csv");
    execFileSync("mkfifo", [fifo]);
    expect(await checkOf(fifo)).toBe(
      `csvPath | custodian CSV file: '${fifo}' is a named pipe, not a regular file: give the path of a CSV file`,
    );
  });

  it("refuses a character device (/dev/zero, endless) by its kind, reading none of it", { timeout: 20_000 }, async () => {
    expect(await checkOf("/dev/zero")).toBe(
      "csvPath | custodian CSV file: '/dev/zero' is a character device, not a regular file: give the path of a CSV file",
    );
  });

  it("reads a regular file as before", async () => {
    const file = path.join(tmp, "ok.csv");
    fs.writeFileSync(file, "email\na@b.example\n");
    expect(await checkOf(file)).toBe("");
  });
});
