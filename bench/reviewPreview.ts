/**
 * The access review at scale (issue 32): what `pulumi preview --diff` prints for one pull request's
 * change (one person's permission changed, one person added) to an exported project, which
 * docs/gitops.md's preview.yml posts as the pull request's comment (pulumi/actions cuts a comment at
 * 64,000 characters). Measured under the real engine on the export benchmark's stack, against a
 * baseline in the same run: the same preview with the rosters' `hideDiffs` taken off by a resource
 * transform, which is what Pulumi prints of a dynamic provider's map (every entry, changed or not:
 * what 0.2.0's previews were).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import type { EngineStack } from "../harness/engineStack";
import { tsc } from "./exportedProject";

/** What one preview printed. */
export interface PreviewFigures {
  /** Lines and bytes of what the CLI printed (stdout, then stderr, where --diff puts the resources' lines): what a reviewer reads. */
  lines: number;
  bytes: number;
  wallMs: number;
  /** Whether it names both people the change is about. */
  namesBoth: boolean;
}

/** The review-sized preview and its baseline. */
export interface ReviewPreviewResult {
  /** The change, as a reviewer would describe it. */
  change: string;
  preview: PreviewFigures;
  /** Absent when not run (a firm's world: minutes of output, known). */
  baseline?: PreviewFigures;
}

/** pulumi/actions' limit for a pull request comment (src/libs/pr.ts). */
export const COMMENT_LIMIT = 64_000;

const NEWCOMER = "bench.newcomer@northwind.example";

/** Edits access.ts as a pull request would: one member without permissions gets AI_ADMIN, one person joins. */
function editAccess(project: string): { changed: string } {
  const file = path.join(project, "access.ts");
  const text = fs.readFileSync(file, "utf8");
  const line = /^( {6}\{ email: "([^"]+)",.*permissions: )\[\](.*)$/m.exec(text);
  if (!line) throw new Error("reviewPreview: access.ts has no member without permissions to change");
  const changed = line[2]!;
  const edited = text
    .replace(line[0], `${line[1]}["AI_ADMIN"]${line[3]}`)
    .replace(/^( {4}members: \[\n)/m, `$1      { email: ${JSON.stringify(NEWCOMER)}, permissions: ["AI_ADMIN"] },\n`);
  fs.writeFileSync(file, edited);
  return { changed };
}

/**
 * A program that runs the exported one with the rosters' hideDiffs taken off and their maps
 * unpacked (contract/packed.ts): what Pulumi printed of a roster before 0.3.0 (the baseline).
 */
function fullDiffProgram(project: string): string {
  const file = path.join(project, "bin", "full-diff.js");
  fs.writeFileSync(
    file,
    [
      "// The exported program with every resource's hideDiffs taken off and its maps as maps: what Pulumi prints of a roster's whole map.",
      'const pulumi = require("@pulumi/pulumi");',
      "const unpacked = (v) => (typeof v === 'string' && /^[[{]/.test(v) ? JSON.parse(v) : v);",
      "pulumi.runtime.registerResourceTransform((a) => ({",
      "  props: Object.fromEntries(Object.entries(a.props).map(([k, v]) => [k, unpacked(v)])),",
      "  opts: { ...a.opts, hideDiffs: [] },",
      "}));",
      'module.exports = require("./index.js");',
      "",
    ].join("\n"),
  );
  return file;
}

/**
 * One preview as a pull request's pipeline runs it: \`pulumi preview --diff\` at a shell, timed and
 * read. Without the Automation API's event stream, which carries every step's inputs and outputs
 * (2 to 3 s of a 28,007-person run); one preview through it first makes `program` the stack's.
 */
async function measure(engine: EngineStack, program: string, people: string[]): Promise<PreviewFigures> {
  await engine.preview(program, { diff: true });
  const t0 = performance.now();
  const r = await engine.cli(["preview", "--diff"]);
  const wallMs = Math.round(performance.now() - t0);
  if (r.code !== 0)
    throw new Error(`reviewPreview: pulumi preview failed (exit ${r.code}): ${r.stderr.trim().split("\n").slice(-3).join("; ")}`);
  const printed = `${r.stdout}${r.stderr}`;
  return {
    lines: printed.split("\n").length,
    bytes: Buffer.byteLength(printed),
    wallMs,
    namesBoth: people.every((p) => printed.includes(p)),
  };
}

/**
 * Runs the review-sized preview on the exported `project` whose stack is `engine` (up to date with
 * it), then its baseline (unless `baseline` is false). Edits and recompiles the project.
 */
export async function benchReviewPreview(
  engine: EngineStack,
  project: string,
  log: (line: string) => void,
  opts: { baseline?: boolean } = {},
): Promise<ReviewPreviewResult> {
  const { changed } = editAccess(project);
  const compiled = tsc(project, { emit: true });
  if (!compiled.ok) throw new Error(`reviewPreview: the edited project does not compile:\n${compiled.output}`);
  const people = [changed, NEWCOMER];
  log(`preview: pulumi preview --diff of one change (${changed} gets AI_ADMIN, ${NEWCOMER} joins)...`);
  const preview = await measure(engine, path.join(project, "bin", "index.js"), people);
  log(`preview: ${preview.lines} lines, ${preview.bytes} bytes, ${(preview.wallMs / 1000).toFixed(1)} s`);
  const change = `${changed} gets AI_ADMIN; ${NEWCOMER} joins with AI_ADMIN`;
  if (opts.baseline === false) return { change, preview };
  log("preview: baseline (maps printed whole)...");
  const baseline = await measure(engine, fullDiffProgram(project), people);
  log(`preview: baseline ${baseline.lines} lines, ${baseline.bytes} bytes, ${(baseline.wallMs / 1000).toFixed(1)} s`);
  return { change, preview, baseline };
}
