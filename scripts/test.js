#!/usr/bin/env node
/**
 * `npm test`: the unit and service tiers of vitest.config.ts (no Go, no Pulumi CLI, no dist/),
 * with the arguments after `npm test --` passed on to vitest; then one line saying what it left
 * to `npm run test:engine`, counted by `vitest list` (which reads the engine tier's files without
 * running them, nor its global setup). Exits with vitest's exit code.
 *
 *   npm test                        the two tiers
 *   npm test -- test/cli            only the files whose path has test/cli, as vitest takes it
 *   npm test -- --reporter=json --outputFile=report.json
 *
 * Plain CommonJS with no dependency, as scripts/build.js.
 */
"use strict";
const { spawnSync } = require("node:child_process");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
const VITEST = path.join(path.dirname(require.resolve("vitest/package.json", { paths: [ROOT] })), "vitest.mjs");

/** `vitest list` of the engine tier, as JSON; undefined when it cannot be had. */
function listEngine(filesOnly) {
  const args = [VITEST, "list", "--project", "engine", "--json", ...(filesOnly ? ["--filesOnly"] : [])];
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8" });
  try {
    return r.status === 0 ? JSON.parse(r.stdout) : undefined;
  } catch {
    return undefined;
  }
}

/** The closing line: how much of the engine tier this run left out. */
function engineLine() {
  const files = listEngine(true);
  const tests = listEngine(false);
  if (!files || !tests)
    return "npm test ran the unit and service tiers. Left to `npm run test:engine`: the engine tier (vitest list could not count it).";
  // A static read counts a test written once in a loop (it.each, a helper's loop) once, and does
  // not see those a helper registers: the real number is at least this.
  return (
    `npm test ran the unit and service tiers. Left to \`npm run test:engine\` (the Pulumi CLI, whole programs, dist/): ` +
    `${files.length} files, at least ${tests.length} tests.`
  );
}

const run = spawnSync(process.execPath, [VITEST, "run", "--project", "unit", "--project", "service", ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: "inherit",
});
process.stdout.write(`\n${engineLine()}\n`);
process.exit(run.status ?? 1);
