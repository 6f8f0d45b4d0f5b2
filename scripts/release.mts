/**
 * `npm run release -- <version>`: cuts a release and writes its files into release/<version>/
 * (docs/release.md):
 *
 *   1. the cut (scripts/release/cut.mts): CHANGELOG.md's Unreleased becomes `## <version> (<date>)`,
 *      the version goes into package.json, package-lock.json, the policy pack, the examples'
 *      dependencies and the docs' install lines, the schema is generated again with it; committed
 *      as "Release <version>";
 *   2. the build (scripts/build.js) from that commit, so dist/build-info.json names it;
 *   3. the files: the npm tarball (`npm pack`), the plugin archive of this machine's platform
 *      (scripts/release/plugin.mts) and SHA256SUMS over them (`sha256sum -c SHA256SUMS` checks).
 *
 * Run again when package.json already says <version> (and CHANGELOG has its section), it skips
 * the cut and writes the files again from the commit checked out. A release is made from a
 * committed tree: uncommitted changes refuse it.
 *
 *   npm run release -- 0.3.0                       the release, into release/0.3.0/
 *   npm run release -- 0.3.0 --dry-run --out DIR   the same files, the repository left as it is
 *
 * --dry-run changes no file of the repository (dist/ is built only when stale) and commits
 * nothing: the cut is applied to the packed copy of the package only (its package.json, CHANGELOG
 * and build-info.json say <version>; the commit stamped is the one checked out). Tests use it.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { cutFiles } from "./release/cut.mts";
import { buildPlugin } from "./release/plugin.mts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const USAGE = "usage: npm run release -- <version> [--dry-run] [--out <folder>]";

interface Options {
  version: string;
  dryRun: boolean;
  out: string;
}

/** The command line's options; throws a usage error for anything else. */
export function parseArgs(argv: string[]): Options {
  let version: string | undefined;
  let dryRun = false;
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--dry-run") dryRun = true;
    else if (a === "--out" && argv[i + 1]) out = argv[++i];
    else if (!a.startsWith("-") && version === undefined) version = a;
    else throw new Error(`release: unexpected argument '${a}' (${USAGE})`);
  }
  if (!version || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) throw new Error(`release: a version like 0.3.0 is needed (${USAGE})`);
  return { version, dryRun, out: path.resolve(out ?? path.join(ROOT, "release", version)) };
}

/** Runs a command in `cwd`; throws with its output when it fails; returns its stdout. */
function run(command: string, args: string[], cwd = ROOT): string {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

const say = (line: string) => process.stderr.write(`release: ${line}\n`);

/** Applies the cut to the repository and commits it (the release commit). */
function cutAndCommit(version: string, date: string): void {
  const files = cutFiles(ROOT, version, date);
  for (const [file, text] of files) fs.writeFileSync(path.join(ROOT, file), text);
  run(process.execPath, ["scripts/generate-schema.mts"]);
  run("git", ["add", ...files.keys(), "provider/plugin/schema.generated.ts", "docs/plugin-reference.md"]);
  run("git", [
    "commit",
    "-m",
    `Release ${version}: CHANGELOG's Unreleased cut as ${version} (${date}); the version in package.json, package-lock.json, the policy pack, the examples' dependencies, the docs' install lines and the plugin's schema`,
  ]);
  say(`committed the cut of ${version}`);
}

/** Copies the files `npm pack` would put in the package into `stage`; `replace` overrides some by relative path. */
function stagePackage(stage: string, replace: Map<string, string>): void {
  const [packed] = JSON.parse(run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"])) as [{ files: { path: string }[] }];
  for (const { path: file } of packed.files) {
    const target = path.join(stage, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (replace.has(file)) fs.writeFileSync(target, replace.get(file)!);
    else fs.copyFileSync(path.join(ROOT, file), target);
  }
}

/** Writes `SHA256SUMS` in `out` over its other files, in `sha256sum`'s format. */
function writeSums(out: string): void {
  const lines = fs
    .readdirSync(out)
    .filter((f) => f !== "SHA256SUMS")
    .sort()
    .map(
      (f) =>
        `${createHash("sha256")
          .update(fs.readFileSync(path.join(out, f)))
          .digest("hex")}  ${f}\n`,
    );
  fs.writeFileSync(path.join(out, "SHA256SUMS"), lines.join(""));
}

/** Makes the release `o` describes; returns the files written into its folder. */
export function release(o: Options): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
  const alreadyCut = pkg.version === o.version && fs.readFileSync(path.join(ROOT, "CHANGELOG.md"), "utf8").includes(`\n## ${o.version} (`);
  const date = new Date().toISOString().slice(0, 10);
  let replace = new Map<string, string>();
  if (o.dryRun) {
    if (!alreadyCut) replace = cutFiles(ROOT, o.version, date);
    run(process.execPath, ["scripts/build.js", "--if-stale"]);
  } else {
    if (run("git", ["status", "--porcelain"]).trim() !== "")
      throw new Error("release: the tree has uncommitted changes; a release is made from a commit (or use --dry-run)");
    if (!alreadyCut) cutAndCommit(o.version, date);
    say("building dist/ from the release commit");
    run(process.execPath, ["scripts/build.js"]);
  }
  // The stamp of the build, with the release's version (a dry run's packed copy says it too).
  const info = JSON.parse(fs.readFileSync(path.join(ROOT, "dist/build-info.json"), "utf8")) as Record<string, unknown>;
  replace.set("dist/build-info.json", JSON.stringify({ ...info, version: o.version }, null, 2) + "\n");

  fs.rmSync(o.out, { recursive: true, force: true });
  fs.mkdirSync(o.out, { recursive: true });
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-release-"));
  try {
    stagePackage(stage, replace);
    say(`packing ${o.version} into ${o.out}`);
    run("npm", ["pack", "--ignore-scripts", "--pack-destination", o.out], stage);
    const mtime = Number(run("git", ["log", "-1", "--format=%ct"]).trim());
    say("building the plugin's single executable");
    buildPlugin({ stage, root: ROOT, out: o.out, version: o.version, mtime });
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
  writeSums(o.out);
  return fs.readdirSync(o.out).sort();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const options = parseArgs(process.argv.slice(2));
    const files = release(options);
    process.stdout.write(`${options.out}\n${files.map((f) => `  ${f}\n`).join("")}`);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
}
