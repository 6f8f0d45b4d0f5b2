#!/usr/bin/env node
/**
 * The entry the Node.js language host of our CLI build starts instead of `@pulumi/pulumi/cmd/run`
 * (PULUMI_LANGUAGE_NODEJS_RUN_PATH, set by the `pulumi-language-nodejs` wrapper build.sh writes).
 *
 * Why: the only language host the Go module proxy serves (see nodejs-host/go.mod) predates
 * pulumi/pulumi#21684, after which policy packs start through the host's RunPlugin with
 * `@pulumi/pulumi/cmd/run-policy-pack`; it starts every plugin with `cmd/run-plugin`, so
 * `pulumi preview --policy-pack <folder>` fails. This file does what newer hosts do: a plugin
 * folder holding PulumiPolicy.yaml runs `cmd/run-policy-pack <engine> <folder>` in that folder;
 * a program (`--monitor ...`) runs `cmd/run`, any other plugin `cmd/run-plugin`, unchanged.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const args = process.argv.slice(2);
/** `@pulumi/pulumi/cmd/<name>` as the folder `from` resolves it (the host resolves from the program's folder). */
const sdkEntry = (name, from) => require.resolve(`@pulumi/pulumi/cmd/${name}`, { paths: [from] });

let entry;
let rest = args;
if (args.includes("--monitor")) {
  entry = sdkEntry("run", process.cwd());
} else {
  // RunPlugin: [<plugin folder>, ...the engine's arguments].
  const folder = path.resolve(args[0] ?? ".");
  if (fs.existsSync(path.join(folder, "PulumiPolicy.yaml"))) {
    entry = sdkEntry("run-policy-pack", folder);
    rest = [...args.slice(1), folder];
    process.chdir(folder);
  } else {
    entry = sdkEntry("run-plugin", folder);
  }
}
process.argv = [process.argv[0], entry, ...rest];
require(entry);
