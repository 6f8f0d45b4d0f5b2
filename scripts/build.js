#!/usr/bin/env node
/**
 * Builds dist/ (TypeScript, tsconfig.build.json), and lets the npm scripts that run from dist
 * (emulator, demo, bench) start at once: with --if-stale it builds only when dist is missing or a
 * source changed since the last successful build, so `npm run emulator` takes a fraction of a
 * second instead of a full compile every time.
 *
 *   node scripts/build.js              build (npm run build, and prepare at npm ci)
 *   node scripts/build.js --if-stale   build only when needed
 *
 * A successful build leaves dist/.build-stamp, dated when that build started: a source saved
 * during a build is newer than the stamp, so the next --if-stale builds again. Plain CommonJS
 * with no dependency, since it runs before anything is compiled.
 */
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
const TSCONFIG = "tsconfig.build.json";
const STAMP = path.join("dist", ".build-stamp");

/** The folders tsconfig.build.json compiles, and the config files that change its output. */
function sources(root) {
  const config = JSON.parse(fs.readFileSync(path.join(root, TSCONFIG), "utf8"));
  return { folders: config.include ?? [], files: [TSCONFIG, "tsconfig.json"] };
}

/** The newest modification time (ms) of the TypeScript sources and configs under `root`; 0 when none. */
function newestSource(root) {
  const { folders, files } = sources(root);
  let newest = 0;
  const visit = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name === "node_modules" || e.name === "dist" || e.name.startsWith(".")) continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) visit(full);
      else if (e.name.endsWith(".ts")) newest = Math.max(newest, fs.statSync(full).mtimeMs);
    }
  };
  for (const folder of folders) visit(path.join(root, folder));
  for (const file of files) {
    try {
      newest = Math.max(newest, fs.statSync(path.join(root, file)).mtimeMs);
    } catch {
      // An absent config changes nothing.
    }
  }
  return newest;
}

/** Why dist under `root` needs a build, or undefined when it is up to date. */
function staleReason(root) {
  let stamp;
  try {
    stamp = fs.statSync(path.join(root, STAMP)).mtimeMs;
  } catch {
    return "dist/ has not been built here yet";
  }
  return newestSource(root) > stamp ? "sources changed since the last build" : undefined;
}

/**
 * What a review's manifest says of the tool that wrote it (cli/review/evidence.ts): the version and
 * the commit the build was made from, and whether the tree had uncommitted changes.
 */
function buildInfo(root) {
  const version = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version;
  const git = (...args) => spawnSync("git", ["-C", root, ...args], { encoding: "utf8" });
  const head = git("rev-parse", "HEAD");
  if (head.error || head.status !== 0) return { version, commit: null, why: "built outside a git checkout" };
  const status = git("status", "--porcelain");
  return { version, commit: head.stdout.trim(), dirty: status.status !== 0 || status.stdout.trim() !== "" };
}

/** Compiles dist/ afresh with the project's TypeScript; on success dates the stamp at the build's start. Returns the exit code. */
function build(root) {
  const started = new Date();
  // From nothing: a source moved or removed (control.ts into control/) must not leave its old
  // output behind, where require() would still find it first.
  fs.rmSync(path.join(root, "dist"), { recursive: true, force: true });
  const tsc = require.resolve("typescript/bin/tsc", { paths: [root] });
  const result = spawnSync(process.execPath, [tsc, "-p", path.join(root, TSCONFIG)], { cwd: root, stdio: "inherit" });
  const code = result.status ?? 1;
  if (code === 0) {
    fs.writeFileSync(path.join(root, "dist", "build-info.json"), JSON.stringify(buildInfo(root), null, 2) + "\n");
    const stamp = path.join(root, STAMP);
    fs.mkdirSync(path.dirname(stamp), { recursive: true });
    fs.writeFileSync(stamp, `${started.toISOString()}\n`);
    fs.utimesSync(stamp, started, started);
  }
  return code;
}

/**
 * One line when this Node is older than package.json's engines (">=X.Y.Z") allows: the build
 * works on it, but nothing it builds will run (npm itself only warns about engines).
 */
function nodeWarning(root, version = process.versions.node) {
  const range = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).engines?.node ?? "";
  const m = /^>=\s*(\d+)\.(\d+)/.exec(range);
  if (!m) return undefined;
  const [major, minor] = version.split(".").map(Number);
  const [needMajor, needMinor] = [Number(m[1]), Number(m[2])];
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `warning: pulumi-reviewadmin needs Node ${needMajor}.${needMinor} or newer (Node 24 recommended); this is Node ${version}: it builds, but the provider, the emulator and the demo will not run.`;
}

module.exports = { newestSource, staleReason, build, nodeWarning, buildInfo };

if (require.main === module) {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== "--if-stale");
  if (unknown.length > 0) {
    process.stderr.write(`build.js: unknown argument ${unknown[0]} (usage: node scripts/build.js [--if-stale])\n`);
    process.exit(2);
  }
  if (args.includes("--if-stale")) {
    // The program run next (emulator, demo, bench) says itself which Node it needs.
    const reason = staleReason(ROOT);
    if (reason === undefined) process.exit(0);
    process.stderr.write(`Building dist/ first (${reason}); later starts skip this.\n`);
  } else {
    const warning = nodeWarning(ROOT);
    if (warning) process.stderr.write(warning + "\n");
  }
  process.exit(build(ROOT));
}
