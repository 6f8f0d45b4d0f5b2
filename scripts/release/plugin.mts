/**
 * Builds the plugin's single executable and its Pulumi plugin archive (docs/release.md):
 *
 *   1. the payload: the package as npm packs it (a staged folder) plus the production
 *      node_modules it runs on, as a ustar tarball, gzipped (launcher.cjs says why not a bundle);
 *   2. a Node single-executable application: launcher.cjs as the main script, the payload and its
 *      SHA-256 as assets (`node --experimental-sea-config`), injected into a copy of a Node binary
 *      with postject;
 *   3. `pulumi-resource-reviewadmin-v<version>-<os>-<arch>.tar.gz`: the executable at the archive's
 *      root (what `pulumi plugin install resource reviewadmin <version> --file` unpacks) and the
 *      licence. No PulumiPlugin.yaml: with one, Pulumi would run the plugin through a language host.
 *
 * The production node_modules are this checkout's own (installed from package-lock.json), the
 * packages `npm ls --omit=dev` lists: the versions the tests ran, none fetched anew.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as zlib from "node:zlib";
import { tarOf, type TarEntry } from "./tar.mts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The fuse Node's SEA support looks for in its binary (the same in every Node that has SEA). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
/** The plugin's executable name, as Pulumi looks for it in the plugin's folder. */
export const PLUGIN_BINARY = "pulumi-resource-reviewadmin";

/** Pulumi's name of a platform (`linux-amd64`) for Node's platform and architecture. */
export function pulumiPlatform(platform: string = process.platform, arch: string = process.arch): string {
  const osName = platform === "win32" ? "windows" : platform;
  const archName = arch === "x64" ? "amd64" : arch;
  return `${osName}-${archName}`;
}

/** Runs a command; throws with its output when it fails. */
function run(command: string, args: string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** The files under `dir` as archive entries named `under/<relative path>`, skipping folders named in `skip`. */
function filesOf(dir: string, under: string, skip: Set<string> = new Set()): TarEntry[] {
  const entries: TarEntry[] = [];
  const visit = (abs: string, rel: string) => {
    for (const name of fs.readdirSync(abs).sort()) {
      const full = path.join(abs, name);
      const inside = rel ? `${rel}/${name}` : name;
      const stat = fs.statSync(full); // symbolic links followed: the payload holds what they point at
      if (stat.isDirectory()) {
        if (!skip.has(name)) visit(full, inside);
      } else if (stat.isFile()) entries.push({ path: inside, data: fs.readFileSync(full), mode: stat.mode & 0o111 ? 0o755 : 0o644 });
    }
  };
  visit(dir, under);
  return entries;
}

/** The production packages of the checkout at `root` (each folder under node_modules, nested ones listed on their own). */
export function productionPackages(root: string): string[] {
  const listed = run("npm", ["ls", "--omit=dev", "--all", "--parseable", "--workspaces=false"], root);
  const modules = path.join(root, "node_modules") + path.sep;
  return listed
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith(modules))
    .map((l) => path.relative(root, l).split(path.sep).join("/"))
    .sort();
}

/** The payload: the staged package at the root and its production node_modules; gzipped. */
function payloadOf(stage: string, root: string, mtime: number): Buffer {
  const entries = filesOf(stage, "");
  for (const pkg of productionPackages(root)) entries.push(...filesOf(path.join(root, pkg), pkg, new Set(["node_modules"])));
  return zlib.gzipSync(tarOf(entries, mtime), { level: 9 });
}

export interface PluginBuild {
  /** The package as npm packs it, with the release's version (release.mts stages it). */
  stage: string;
  /** The checkout whose node_modules hold the production dependencies. */
  root: string;
  /** The folder the archive is written into. */
  out: string;
  version: string;
  /** The date of every file in the archives (seconds since 1970): the release commit's. */
  mtime: number;
  /** The Node binary to turn into the executable (this one by default: the same version must make the blob). */
  node?: string;
}

/** Builds the executable and its plugin archive for this machine's platform; returns the archive's path. */
export function buildPlugin(b: PluginBuild): string {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-sea-"));
  try {
    const payload = payloadOf(b.stage, b.root, b.mtime);
    fs.writeFileSync(path.join(work, "payload.tar.gz"), payload);
    fs.writeFileSync(path.join(work, "payload.sha256"), createHash("sha256").update(payload).digest("hex") + "\n");
    const config = {
      main: path.join(HERE, "launcher.cjs"),
      output: path.join(work, "sea.blob"),
      disableExperimentalSEAWarning: true,
      // Neither is portable across platforms or Node versions; the payload is loaded from files anyway.
      useSnapshot: false,
      useCodeCache: false,
      assets: { "payload.tar.gz": path.join(work, "payload.tar.gz"), "payload.sha256": path.join(work, "payload.sha256") },
    };
    fs.writeFileSync(path.join(work, "sea-config.json"), JSON.stringify(config, null, 2));
    run(process.execPath, ["--experimental-sea-config", "sea-config.json"], work);

    const windows = process.platform === "win32";
    const exe = path.join(work, windows ? `${PLUGIN_BINARY}.exe` : PLUGIN_BINARY);
    fs.copyFileSync(b.node ?? process.execPath, exe);
    fs.chmodSync(exe, 0o755);
    const postject = path.join(path.dirname(fileURLToPath(import.meta.resolve("postject"))), "cli.js");
    const macho = process.platform === "darwin" ? ["--macho-segment-name", "NODE_SEA"] : [];
    run(process.execPath, [postject, exe, "NODE_SEA_BLOB", config.output, "--sentinel-fuse", SEA_FUSE, ...macho], work);

    const archive = path.join(b.out, `${PLUGIN_BINARY}-v${b.version}-${pulumiPlatform()}.tar.gz`);
    const entries: TarEntry[] = [
      { path: path.basename(exe), data: fs.readFileSync(exe), mode: 0o755 },
      { path: "LICENSE", data: fs.readFileSync(path.join(b.stage, "LICENSE")), mode: 0o644 },
    ];
    fs.writeFileSync(archive, zlib.gzipSync(tarOf(entries, b.mtime), { level: 9 }));
    return archive;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
