#!/usr/bin/env node
/**
 * `npm run test:times`: where the time of a test run went, so that the next person keeps the
 * tiers fast. Reads a vitest JSON report (every run writes one to test-artifacts/vitest.json,
 * vitest.config.ts; .ci/run its own) and prints, per tier: its files and tests, its span (from its
 * first test's start to its last test's end: its wall time when the tiers ran one after the other,
 * as in `npm run test:all`) and the sum of its files' times; then the slowest files.
 *
 *   node scripts/test-times.js [REPORT] [--top N]     (default: test-artifacts/vitest.json, 15)
 *
 * A file's time is the JSON report's: from its first test's start to its last test's end, so its
 * import and its beforeAll hooks are not in it. A file's tier is what `vitest list --filesOnly`
 * says of it (the report does not name projects). Plain CommonJS with no dependency.
 */
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
const DEFAULT_REPORT = path.join("test-artifacts", "vitest.json");
const TIERS = ["unit", "service", "engine"];

/** file (absolute) -> tier, from vitest's own reading of the config; empty when it cannot be had. */
function tiersOfFiles() {
  const vitest = path.join(path.dirname(require.resolve("vitest/package.json", { paths: [ROOT] })), "vitest.mjs");
  const r = spawnSync(process.execPath, [vitest, "list", "--filesOnly", "--json"], { cwd: ROOT, encoding: "utf8" });
  try {
    return new Map(JSON.parse(r.stdout).map((f) => [f.file, f.projectName]));
  } catch {
    return new Map();
  }
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** The lines of the summary of `report` (a vitest JSON report), `top` slowest files. */
function summary(report, tierOf, top) {
  const files = report.testResults.map((f) => ({
    file: path.relative(ROOT, f.name),
    tier: tierOf.get(f.name) ?? "(none)",
    start: f.startTime,
    end: f.endTime,
    ms: f.endTime - f.startTime,
    tests: f.assertionResults.length,
    failed: f.assertionResults.filter((t) => t.status === "failed").length,
  }));
  const lines = [
    `${report.numTotalTests} tests in ${files.length} files: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ` +
      `${report.numPendingTests + report.numTodoTests} skipped`,
    "",
    `${"tier".padEnd(8)} ${"files".padStart(5)} ${"tests".padStart(6)} ${"span".padStart(10)} ${"sum of files".padStart(13)}`,
  ];
  const tiers = [...TIERS, ...new Set(files.map((f) => f.tier).filter((t) => !TIERS.includes(t)))];
  for (const tier of tiers) {
    const of = files.filter((f) => f.tier === tier);
    if (of.length === 0) continue;
    const span = Math.max(...of.map((f) => f.end)) - Math.min(...of.map((f) => f.start));
    const sum = of.reduce((n, f) => n + f.ms, 0);
    const tests = of.reduce((n, f) => n + f.tests, 0);
    lines.push(
      `${tier.padEnd(8)} ${String(of.length).padStart(5)} ${String(tests).padStart(6)} ${seconds(span).padStart(10)} ${seconds(sum).padStart(13)}`,
    );
  }
  lines.push("", `slowest files (first test's start to last test's end):`);
  for (const f of [...files].sort((a, b) => b.ms - a.ms).slice(0, top))
    lines.push(
      `  ${seconds(f.ms).padStart(9)}  ${f.tier.padEnd(7)}  ${f.file} (${f.tests} test${f.tests === 1 ? "" : "s"}${f.failed ? `, ${f.failed} failed` : ""})`,
    );
  return lines;
}

module.exports = { summary };

if (require.main === module) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--top");
  const top = at >= 0 ? Number(args.splice(at, 2)[1]) : 15;
  if (!Number.isInteger(top) || top < 1 || args.length > 1 || args.some((a) => a.startsWith("-"))) {
    process.stderr.write("usage: node scripts/test-times.js [REPORT] [--top N]\n");
    process.exit(2);
  }
  const file = path.resolve(args[0] ?? path.join(ROOT, DEFAULT_REPORT));
  let report;
  try {
    report = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    process.stderr.write(
      `test:times: cannot read a vitest JSON report at ${file} (${e.code ?? e.message}): run the tests first ` +
        `(npm test, npm run test:all ...; each run writes ${DEFAULT_REPORT}), or name a report\n`,
    );
    process.exit(1);
  }
  process.stdout.write(
    `test times from ${path.relative(process.cwd(), file) || file}\n${summary(report, tiersOfFiles(), top).join("\n")}\n`,
  );
}
