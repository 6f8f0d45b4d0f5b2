#!/usr/bin/env node
/**
 * `pulumi-resource-reviewadmin`: the plugin face's executable, which the Pulumi engine starts with
 * its own address as the first argument (server.ts). Installed with the package (its `bin`), in
 * the package's plugin/ folder for `plugins.providers` in a project's Pulumi.yaml, and run by the
 * release's single executable (scripts/release/launcher.cjs). `--version` prints the version and
 * the commit it was built from.
 */
// First: on an old Node, one line saying which Node is needed, before undici loads.
import "../../contract/requireNode";
import * as fs from "node:fs";
import * as path from "node:path";
import { versionText, type BuildStamp } from "../../contract/buildInfo";
import { serve } from "./server";

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "../../../package.json"), "utf8")) as { version: string };
if (process.argv[2] === "--version") {
  const stamp = path.join(__dirname, "../../build-info.json");
  const build = fs.existsSync(stamp) ? (JSON.parse(fs.readFileSync(stamp, "utf8")) as BuildStamp) : { why: "not stamped" };
  console.log(`pulumi-resource-reviewadmin ${versionText(pkg.version, build)}`);
} else {
  serve(process.argv.slice(2), pkg.version).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
