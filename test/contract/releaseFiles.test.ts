/**
 * The release's text and archive rules (scripts/release/): the cut of CHANGELOG.md's Unreleased
 * section and of the versions, on a copy of the repository's files; and the ustar writer read
 * back by the plugin executable's own reader (scripts/release/launcher.cjs), the pair that
 * carries the package inside the executable. The whole release runs in engine/release.test.ts.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { cutChangelog, cutFiles, moveDocVersions } from "../../scripts/release/cut.mjs";
import { tarOf } from "../../scripts/release/tar.mjs";

const ROOT = path.resolve(__dirname, "../..");
const { untar, removeAbandoned, unpacked } = require("../../scripts/release/launcher.cjs") as {
  untar: (tar: Buffer, dest: string) => void;
  removeAbandoned: (root: string, name: string) => void;
  unpacked: (assets: { getAsset(key: string): ArrayBuffer }, hash: string, roots: string[]) => string;
};

const CHANGELOG = `# Changelog

## State compatibility

| package version | writes schemaVersion | reads states of |
|---|---|---|
| 0.2.0 | 1 | 1 (0.1.0) |
| Unreleased | 1 | 1 (0.1.0, 0.2.0) |

## Unreleased

### Things

- a change

## 0.2.0 (2026-11-25)

- older
`;

describe("the cut of a release", () => {
  it("turns Unreleased into the dated version under a new empty Unreleased, and the table's row with it", () => {
    const cut = cutChangelog(CHANGELOG, "0.3.0", "2026-12-02");
    expect(cut).toContain("| 0.3.0 | 1 | 1 (0.1.0, 0.2.0) |\n");
    expect(cut).not.toContain("| Unreleased |");
    expect(cut).toContain("## Unreleased\n\n## 0.3.0 (2026-12-02)\n\n### Things\n\n- a change\n\n## 0.2.0 (2026-11-25)\n\n- older\n");
  });

  it("refuses an empty Unreleased and a version already released", () => {
    const empty = cutChangelog(CHANGELOG, "0.3.0", "2026-12-02");
    expect(() => cutChangelog(empty, "0.3.1", "2026-12-03")).toThrow(/Unreleased section is empty/);
    expect(() => cutChangelog(CHANGELOG, "0.2.0", "2026-12-02")).toThrow(/already has a section for 0.2.0/);
  });

  it("moves the version in package.json, the lockfile, the policy pack, every example's range on the package and the docs' install lines", () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "release-cut-"));
    for (const file of ["package.json", "package-lock.json", "policy/package.json"]) {
      fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
      fs.copyFileSync(path.join(ROOT, file), path.join(copy, file));
    }
    const examples = fs
      .readdirSync(path.join(ROOT, "examples"))
      .filter((e) => fs.existsSync(path.join(ROOT, "examples", e, "package.json")));
    for (const e of examples) {
      fs.mkdirSync(path.join(copy, "examples", e), { recursive: true });
      fs.copyFileSync(path.join(ROOT, "examples", e, "package.json"), path.join(copy, "examples", e, "package.json"));
    }
    fs.writeFileSync(path.join(copy, "CHANGELOG.md"), CHANGELOG);
    const from = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
    fs.writeFileSync(path.join(copy, "README.md"), `npm install ./vendor/pulumi-reviewadmin-${from}.tgz\n`);
    fs.mkdirSync(path.join(copy, "docs"));
    fs.writeFileSync(path.join(copy, "docs", "unrelated.md"), "No release named here.\n");

    const files = cutFiles(copy, "9.9.9", "2030-01-01");
    const json = (file: string) => JSON.parse(files.get(file)!);
    expect(json("package.json").version).toBe("9.9.9");
    expect(json("policy/package.json").version).toBe("9.9.9");
    const lock = json("package-lock.json");
    expect([lock.version, lock.packages[""].version]).toEqual(["9.9.9", "9.9.9"]);
    const ranges = (text: string) => text.match(/"pulumi-reviewadmin": "\^[^"]+"/g) ?? [];
    expect(ranges(files.get("package-lock.json")!).every((r) => r.endsWith('^9.9.9"'))).toBe(true);
    for (const e of examples) {
      const before = JSON.parse(fs.readFileSync(path.join(copy, "examples", e, "package.json"), "utf8"));
      if (before.dependencies?.["pulumi-reviewadmin"] === `^${from}`)
        expect(json(`examples/${e}/package.json`).dependencies["pulumi-reviewadmin"]).toBe("^9.9.9");
    }
    expect(files.get("README.md")).toBe("npm install ./vendor/pulumi-reviewadmin-9.9.9.tgz\n");
    expect(files.has("docs/unrelated.md")).toBe(false);
    // Nothing else in a package.json changes: the text is as npm writes it.
    expect(files.get("package.json")).toBe(
      fs.readFileSync(path.join(copy, "package.json"), "utf8").replace(`"version": "${from}"`, '"version": "9.9.9"'),
    );
    fs.rmSync(copy, { recursive: true, force: true });
  });
});

describe("the docs' install lines at a release", () => {
  it("name the new release's files, and prose naming a version stays as it is", () => {
    const doc = [
      "npm install ./vendor/pulumi-reviewadmin-0.2.0.tgz",
      "pulumi plugin install resource reviewadmin 0.2.0 --file pulumi-resource-reviewadmin-v0.2.0-linux-amd64.tar.gz",
      "npm install github:someone/pulumi-reviewadmin#v0.2.0",
      "States written since 0.2.0 read as before; pulumi-reviewadmin-0.2.01.tgz is another file.",
    ].join("\n");
    expect(moveDocVersions(doc, "0.2.0", "0.3.0").split("\n")).toEqual([
      "npm install ./vendor/pulumi-reviewadmin-0.3.0.tgz",
      "pulumi plugin install resource reviewadmin 0.3.0 --file pulumi-resource-reviewadmin-v0.3.0-linux-amd64.tar.gz",
      "npm install github:someone/pulumi-reviewadmin#v0.3.0",
      "States written since 0.2.0 read as before; pulumi-reviewadmin-0.2.01.tgz is another file.",
    ]);
  });
});

describe("the payload's archive", () => {
  it("reads back as written: long paths split into prefix and name, file modes kept", () => {
    const long = `node_modules/${"a".repeat(60)}/${"b".repeat(60)}/${"c".repeat(90)}.js`;
    const entries = [
      { path: "package.json", data: Buffer.from('{"name":"x"}'), mode: 0o644 },
      { path: long, data: Buffer.alloc(1300, 7), mode: 0o644 },
      { path: "bin/run", data: Buffer.from("#!/bin/sh\n"), mode: 0o755 },
      { path: "empty", data: Buffer.alloc(0), mode: 0o644 },
    ];
    const tar = tarOf(entries, 1_700_000_000);
    expect(tar.length % 512).toBe(0);
    const dest = fs.mkdtempSync(path.join(os.tmpdir(), "release-tar-"));
    untar(tar, dest);
    for (const e of entries) expect(fs.readFileSync(path.join(dest, e.path))).toEqual(e.data);
    expect(fs.statSync(path.join(dest, "bin/run")).mode & 0o777).toBe(0o755);
    fs.rmSync(dest, { recursive: true, force: true });
  });

  it("refuses a path no ustar header can hold, and an entry that would land outside the folder", () => {
    expect(() => tarOf([{ path: "x".repeat(300), data: Buffer.alloc(0), mode: 0o644 }], 0)).toThrow(/path too long/);
    const dest = fs.mkdtempSync(path.join(os.tmpdir(), "release-tar-"));
    expect(() => untar(tarOf([{ path: "../escape", data: Buffer.from("x"), mode: 0o644 }], 0), dest)).toThrow(/outside its folder/);
    fs.rmSync(dest, { recursive: true, force: true });
  });
});

describe("the executable's unpacking folder", () => {
  it("loses the half-done unpackings of starts that were killed, and keeps a running one's and the finished one", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "release-unpack-"));
    const gone = spawnSync("true").pid!; // a process that has ended
    const names = [
      ".reviewadmin-abc",
      `.reviewadmin-abc.${gone}.partial`,
      `.reviewadmin-abc.${process.pid}.partial`,
      `.reviewadmin-def.${gone}.partial`,
    ];
    for (const n of names) fs.mkdirSync(path.join(root, n));
    removeAbandoned(root, ".reviewadmin-abc");
    expect(fs.readdirSync(root).sort()).toEqual([names[0], names[2], names[3]].sort());
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe("where the executable unpacks its payload", () => {
  it("unpacks once into the first folder it can write (here the second: the first is a file), and finds it there next time", () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "release-roots-"));
    const notAFolder = path.join(base, "plugin-dir");
    fs.writeFileSync(notAFolder, "");
    const payload = gzipSync(tarOf([{ path: "dist/provider/plugin/main.js", data: Buffer.from("// main\n"), mode: 0o644 }], 0));
    let reads = 0;
    const assets = {
      getAsset: () => {
        reads++;
        return payload.buffer.slice(payload.byteOffset, payload.byteOffset + payload.length) as ArrayBuffer;
      },
    };
    const hash = "0123456789abcdef0123";
    const folder = unpacked(assets, hash, [notAFolder, path.join(base, "cache")]);
    expect(folder).toBe(path.join(base, "cache", ".reviewadmin-0123456789abcdef"));
    expect(fs.readFileSync(path.join(folder, "dist/provider/plugin/main.js"), "utf8")).toBe("// main\n");
    expect(unpacked(assets, hash, [notAFolder, path.join(base, "cache")])).toBe(folder);
    expect(reads).toBe(1);
    expect(() => unpacked(assets, "ffff", [notAFolder])).toThrow(/cannot unpack the provider into .*plugin-dir/);
    fs.rmSync(base, { recursive: true, force: true });
  });
});
