"use strict";
/**
 * The entry point of the plugin's single executable (a Node single-executable application, SEA):
 * `pulumi-resource-reviewadmin` as one file that needs no Node on the machine.
 *
 * Why not one bundled JavaScript file: the plugin face runs on @pulumi/pulumi's own gRPC and
 * protocol modules, which it loads by path from the SDK's folder (provider/plugin/server.ts,
 * provider/pluginHost.ts), and the SDK loads modules by computed names; a bundler rewrites or
 * drops exactly those. So the executable carries the package as npm installs it, compiled, with
 * its production node_modules, as a tarball (the SEA asset `payload.tar.gz`), unpacked once into
 * a folder named after the tarball's SHA-256 and loaded from there with `module.createRequire`:
 * the very files the npm route runs, laid out the same way.
 *
 * The folder is `.reviewadmin-<hash>` beside the executable (in the plugin's folder under
 * $PULUMI_HOME/plugins, so `pulumi plugin rm` removes it with the plugin); where that cannot be
 * written, under the user's cache folder (~/.cache/pulumi-reviewadmin/plugin). Two processes
 * starting at once each unpack into a folder of their own and rename it into place; the loser
 * uses the winner's. Plain CommonJS with Node's built-in modules only (SEA main scripts cannot
 * load files); scripts/release/plugin.mts builds the executable.
 */
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const zlib = require("node:zlib");
const { createRequire } = require("node:module");

/** The embedded assets (scripts/release/plugin.mts) and the plugin's entry point inside the payload. */
const PAYLOAD = "payload.tar.gz";
const PAYLOAD_SHA256 = "payload.sha256";
const MAIN = "dist/provider/plugin/main.js";
/** Written last into an unpacked folder: a folder without it is a half-finished unpacking. */
const COMPLETE = ".complete";

/** Writes the files of a ustar archive (`tar`, a Buffer) under `dest`; only files and folders, as plugin.mts writes. */
function untar(tar, dest) {
  const root = path.resolve(dest);
  for (let off = 0; off + 512 <= tar.length;) {
    const header = tar.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break; // the end-of-archive blocks
    const field = (start, length) => header.toString("utf8", start, start + length).replace(/\0[\s\S]*$/, "");
    const name = field(0, 100);
    const prefix = field(345, 155);
    const size = parseInt(field(124, 12).trim() || "0", 8);
    const mode = parseInt(field(100, 8).trim() || "644", 8);
    const type = field(156, 1) || "0";
    off += 512;
    const target = path.resolve(root, prefix ? `${prefix}/${name}` : name);
    if (!target.startsWith(root + path.sep)) throw new Error(`payload entry outside its folder: ${name}`);
    if (type === "5") fs.mkdirSync(target, { recursive: true });
    else if (type === "0") {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, tar.subarray(off, off + size), { mode: mode & 0o777 });
    } else throw new Error(`payload entry of type '${type}' (only files and folders are written): ${name}`);
    off += Math.ceil(size / 512) * 512;
  }
}

/** Where the payload may be unpacked, in order: beside the executable, then the user's cache folder. */
function cacheRoots(executable) {
  const userCache =
    process.platform === "win32"
      ? (process.env.LOCALAPPDATA ?? os.tmpdir())
      : (process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"));
  return [path.dirname(executable), path.join(userCache, "pulumi-reviewadmin", "plugin")];
}

/** True while process `pid` runs (EPERM: it runs, as another user). */
function running(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/** Removes the half-done unpackings (`<name>.<pid>.partial`) in `root` of starts that were killed meanwhile. */
function removeAbandoned(root, name) {
  for (const entry of fs.existsSync(root) ? fs.readdirSync(root) : []) {
    if (!entry.startsWith(`${name}.`) || !entry.endsWith(".partial")) continue;
    const pid = Number(entry.slice(name.length + 1, -".partial".length));
    if (Number.isInteger(pid) && !running(pid)) fs.rmSync(path.join(root, entry), { recursive: true, force: true });
  }
}

/** The folder holding the unpacked payload `hash` names: unpacked now unless an earlier start did. */
function unpacked(sea, hash, roots) {
  const name = `.reviewadmin-${hash.slice(0, 16)}`;
  const problems = [];
  for (const root of roots) {
    const folder = path.join(root, name);
    if (fs.existsSync(path.join(folder, COMPLETE))) return folder;
    const partial = `${folder}.${process.pid}.partial`;
    try {
      fs.mkdirSync(root, { recursive: true });
      removeAbandoned(root, name);
      untar(zlib.gunzipSync(sea.getAsset(PAYLOAD)), partial);
      fs.writeFileSync(path.join(partial, COMPLETE), `${hash}\n`);
      try {
        fs.renameSync(partial, folder);
      } catch {
        // Another start renamed its copy into place first (only complete copies are renamed): use that one.
        fs.rmSync(partial, { recursive: true, force: true });
        if (!fs.existsSync(path.join(folder, COMPLETE))) throw new Error(`${folder} is in the way: remove it`);
      }
      return folder;
    } catch (err) {
      fs.rmSync(partial, { recursive: true, force: true });
      problems.push(`${root}: ${err.message}`);
    }
  }
  throw new Error(`pulumi-resource-reviewadmin: cannot unpack the provider into ${problems.join("; ")}`);
}

/** Unpacks (once) and runs the plugin's entry point, which reads its arguments from process.argv as under Node. */
function main() {
  const sea = require("node:sea");
  const hash = sea.getAsset(PAYLOAD_SHA256, "utf8").trim();
  const folder = unpacked(sea, hash, cacheRoots(process.execPath));
  const entry = path.join(folder, MAIN);
  createRequire(entry)(entry);
}

if (require("node:sea").isSea()) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`${err && err.message ? err.message : String(err)}\n`);
    process.exit(1);
  }
} else {
  module.exports = { untar, removeAbandoned, unpacked };
}
