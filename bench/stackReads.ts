/**
 * The enterprise benchmark's reads of a stack's export with the compiled bin (export.ts runs them
 * after the refresh): `state show`, and the review packet judged against the stack.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import type { EngineStack } from "../harness/engineStack";
import { repoRoot } from "./exportedProject";

/** Runs the compiled bin with `args`; resolves to its exit code and output (the emulator keeps serving meanwhile). */
export function runBin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "dist", "cli", "main.js"), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Times `pulumi-reviewadmin state show` (the compiled bin) of the stack's export: what an auditor runs to read the state offline. */
export async function benchStateShow(
  stack: EngineStack,
  tmp: string,
  log: (line: string) => void,
): Promise<{ wallMs: number; people: number; exportBytes: number; outputBytes: number; file: string }> {
  log("export: `pulumi-reviewadmin state show` of `pulumi stack export`...");
  const exported = await stack.cli(["stack", "export"]);
  if (exported.code !== 0) throw new Error(`pulumi stack export failed (exit ${exported.code}): ${exported.stderr.trim()}`);
  const file = path.join(tmp, "stack-export.json");
  fs.writeFileSync(file, exported.stdout);
  const t0 = performance.now();
  const r = await runBin(["state", "show", "--stack-state", file]);
  const wallMs = Math.round(performance.now() - t0);
  if (r.code !== 0) throw new Error(`state show failed (exit ${r.code}): ${r.stderr.trim()}`);
  const people = Number(/\n(\d+) people declared by/.exec(r.stdout)?.[1] ?? NaN);
  log(`export: state show: ${people} people in ${(wallMs / 1000).toFixed(1)} s, ${(r.stdout.length / 1024 / 1024).toFixed(1)} MiB printed`);
  return { wallMs, people, exportBytes: Buffer.byteLength(exported.stdout), outputBytes: Buffer.byteLength(r.stdout), file };
}

/** Times `pulumi-reviewadmin review --stack-state` (the compiled bin) of the stack's export: the monthly review as review.yml runs it. */
export async function benchReviewWithStack(
  emu: { url: string; control<T>(method: string, path: string): Promise<T> },
  keyFile: string,
  stateFile: string,
  tmp: string,
  log: (line: string) => void,
): Promise<{ wallMs: number; requests: number }> {
  log("export: `pulumi-reviewadmin review --stack-state` of the stack's export (the in-code judgement)...");
  const t0 = performance.now();
  const r = await runBin([
    "review",
    "--out",
    path.join(tmp, "review-with-stack"),
    "--stack-state",
    stateFile,
    "--firm-domain",
    "northwind.example",
    "--expiring-days",
    "30",
    "--base-url",
    emu.url,
    "--api-key-file",
    keyFile,
    "--json",
    "--quiet",
  ]);
  const wallMs = Math.round(performance.now() - t0);
  if (r.code !== 0) throw new Error(`review --stack-state failed (exit ${r.code}): ${r.stderr.trim()}`);
  const requests = (JSON.parse(r.stdout) as { requests: number }).requests;
  log(`export: review --stack-state: ${requests} requests in ${(wallMs / 1000).toFixed(1)} s`);
  return { wallMs, requests };
}
