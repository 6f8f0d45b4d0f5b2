/**
 * The review packet at scale (issue 36): `pulumi-reviewadmin review` run as a user runs it (the
 * compiled bin, a child process, its client at the default 25 requests/s) against the benchmark's
 * world, the size of each file of the packet, and review.html opened in headless Chromium
 * (harness/chromium.ts), RUNS times: the load (navigation start to the load event, which waits for
 * the page's script to draw the first page of every table), the script's own finish, the DOM's
 * elements and heap, and one filter applied (every table and the grid redrawn, layout included).
 * Part of the export benchmark (export.ts, on its world), or alone (`--only review`).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { findChromium, openChromium } from "../harness/chromium";
import { startEmulatorThread, type EmulatorThread } from "./emulatorThread";
import { peakRssOf } from "./processMemory";
import { repoRoot, writesIn } from "./exportedProject";
import type { ScaleWorld } from "./scaleWorld";

/** Loads of review.html measured; the figures are their medians. */
const RUNS = 5;

/** review.html in headless Chromium (medians of RUNS loads). */
export interface HtmlRender {
  chromium: string;
  runs: number;
  /** Navigation start to the load event's end, in the page's clock. */
  loadMs: number;
  /** Navigation start to the end of the page's script (its first pages drawn). */
  scriptMs: number;
  /** Elements in the DOM once drawn. */
  elements: number;
  /** The page's JavaScript heap once drawn. */
  heapBytes: number;
  /** A filter typed and applied: every table and the grid redrawn, and laid out. */
  filterMs: number;
  /** The filter cleared again: every table's and the grid's first page of all the people redrawn, and laid out. */
  clearMs: number;
  /** What the filter kept, as the page says ("N of M people match"). */
  filterNote: string;
}

/** What the review packet benchmark measured. */
export interface ReviewPacketResult {
  /** People in the packet, over its organizations. */
  people: number;
  requests: number;
  writeCount: number;
  wallMs: number;
  /** Peak resident memory of the review's process (VmHWM), in bytes; 0 where /proc is not there. */
  cliPeakRssBytes: number;
  /** Bytes of each file of the packet, by name. */
  files: Record<string, number>;
  /**
   * The packet's four files (review.md, review.html, review.csv, review.json) of a second run at
   * the same --as-of against the same world: the names of those whose bytes differ (none: identical).
   */
  differOnRerun: string[];
  /** Absent when Chromium is not there (`htmlNotMeasured` says so). */
  html?: HtmlRender;
  htmlNotMeasured?: string;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs the compiled bin with `args`, sampling its peak memory; the emulator (in its thread) keeps serving meanwhile. */
function runBin(args: string[]): Promise<{ code: number | null; stderr: string; peakBytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "dist", "cli", "main.js"), ...args], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    let peakBytes = 0;
    const sample = () => (peakBytes = Math.max(peakBytes, peakRssOf(child.pid!)));
    const timer = setInterval(sample, 200);
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", () => clearInterval(timer));
    child.on("close", (code) => resolve({ code, stderr, peakBytes }));
  });
}

/** review.html of `dir` in headless Chromium: RUNS loads, then one filter. */
async function renderHtml(file: string, filter: string): Promise<HtmlRender> {
  const chromium = findChromium()!;
  const page = await openChromium({ binary: chromium, width: 1400, height: 1000 });
  try {
    const loads: { loadMs: number; scriptMs: number; elements: number; heapBytes: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      await page.goto(`file://${file}`);
      const m = await page.evaluate<{ loadMs: number; scriptMs: number; elements: number; heapBytes: number; failed?: string }>(`({
        loadMs: performance.getEntriesByType("navigation")[0].loadEventEnd,
        scriptMs: Number(document.documentElement.dataset.renderMs),
        elements: document.getElementsByTagName("*").length,
        heapBytes: performance.memory ? performance.memory.usedJSHeapSize : 0,
        failed: document.documentElement.dataset.failed,
      })`);
      if (m.failed) throw new Error(`review.html did not draw: ${m.failed}`);
      loads.push(m);
    }
    // Typed (a change event applies it at once), then cleared; each timed with the layout it causes.
    const apply = (text: string) =>
      page.evaluate<{ ms: number; note: string }>(`(() => {
        const input = document.getElementById("filter");
        const t0 = performance.now();
        input.value = ${JSON.stringify(text)};
        input.dispatchEvent(new Event("change"));
        document.body.offsetHeight;
        return { ms: performance.now() - t0, note: document.getElementById("filter-note").textContent };
      })()`);
    const filtered = await apply(filter);
    const cleared = await apply("");
    const version = (await page.evaluate<string>("navigator.userAgent")).match(/(?:Headless)?Chrome\/(\S+)/)?.[1] ?? "";
    return {
      chromium: `Chromium ${version}`,
      runs: RUNS,
      loadMs: Math.round(median(loads.map((l) => l.loadMs))),
      scriptMs: Math.round(median(loads.map((l) => l.scriptMs))),
      elements: median(loads.map((l) => l.elements)),
      heapBytes: median(loads.map((l) => l.heapBytes)),
      filterMs: Math.round(filtered.ms),
      clearMs: Math.round(cleared.ms),
      filterNote: filtered.note,
    };
  } finally {
    await page.close();
  }
}

/** The emulator's request counters (the log itself left out). */
type Counters = { total: number; byOperation: Record<string, { total: number }> };

/** Runs the review packet benchmark against the emulator `emu` (its org admin's key in `keyFile`), writing the packet under `tmp`. */
export async function benchReviewPacket(
  emu: EmulatorThread,
  keyFile: string,
  tmp: string,
  log: (line: string) => void,
): Promise<ReviewPacketResult> {
  const out = path.join(tmp, "access-review");
  log("review: writing the review packet (pulumi-reviewadmin review, the compiled bin at 25 requests/s)...");
  // Both runs review the world as of the same instant: the service's clock now.
  const asOf = (await emu.control<{ now: string }>("GET", "/clock")).now;
  const review = (dir: string) =>
    runBin([
      "review",
      "--out",
      dir,
      "--as-of",
      asOf,
      "--base-url",
      emu.url,
      "--api-key-file",
      keyFile,
      "--firm-domain",
      "northwind.example",
      "--quiet",
    ]);
  await emu.control("DELETE", "/requests");
  const t0 = performance.now();
  const r = await review(out);
  const wallMs = Math.round(performance.now() - t0);
  if (r.code !== 0) throw new Error(`review failed (exit ${r.code}): ${r.stderr.trim()}`);
  const counters = (await emu.control<{ counters: Counters }>("GET", "/requests?operation=(none)")).counters;
  const files = Object.fromEntries(
    fs
      .readdirSync(out)
      .sort()
      .map((f) => [f, fs.statSync(path.join(out, f)).size]),
  );
  const packet = JSON.parse(fs.readFileSync(path.join(out, "review.json"), "utf8")) as { organizations: { people: unknown[] }[] };
  log("review: the same review again, at the same --as-of, to compare the files byte for byte...");
  const again = path.join(tmp, "access-review-again");
  const r2 = await review(again);
  if (r2.code !== 0) throw new Error(`the second review failed (exit ${r2.code}): ${r2.stderr.trim()}`);
  const differOnRerun = ["review.md", "review.html", "review.csv", "review.json"].filter(
    (f) => !fs.readFileSync(path.join(out, f)).equals(fs.readFileSync(path.join(again, f))),
  );
  const result: ReviewPacketResult = {
    people: packet.organizations.reduce((n, o) => n + o.people.length, 0),
    requests: counters.total,
    writeCount: Object.values(writesIn(counters.byOperation)).reduce((a, b) => a + b, 0),
    wallMs,
    cliPeakRssBytes: r.peakBytes,
    files,
    differOnRerun,
  };
  log(
    `review: ${result.people} people, ${result.requests} requests, ${(wallMs / 1000).toFixed(1)} s, peak ${(r.peakBytes / 1024 / 1024).toFixed(0)} MiB; ${Object.entries(
      files,
    )
      .map(([f, b]) => `${f} ${(b / 1024 / 1024).toFixed(1)} MiB`)
      .join(", ")}`,
  );
  if (!findChromium()) {
    result.htmlNotMeasured = "no Chromium on this machine (apt-get install -y chromium, or set CHROMIUM)";
    log(`review: review.html not opened: ${result.htmlNotMeasured}`);
    return result;
  }
  log(`review: opening review.html in headless Chromium (${RUNS} loads, then a filter)...`);
  // A filter that keeps a few dozen people of a synthetic world: those with access to one database.
  result.html = await renderHtml(path.join(out, "review.html"), "(database 2010)");
  log(
    `review: review.html load ${result.html.loadMs} ms (script done at ${result.html.scriptMs} ms), ${result.html.elements} elements, heap ${(result.html.heapBytes / 1024 / 1024).toFixed(0)} MiB; filter ${result.html.filterMs} ms (${result.html.filterNote}), cleared ${result.html.clearMs} ms`,
  );
  return result;
}

/** The review packet benchmark alone, on `world` (seeded in an emulator thread at 25 requests/s). */
export async function benchReviewPacketAlone(world: ScaleWorld, log: (line: string) => void): Promise<ReviewPacketResult> {
  log(`review: seeding ${world.members} members, ${world.databases} databases x ${world.usersPerDatabase} users`);
  const emu = await startEmulatorThread({ rateLimit: 25, scale: world });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-bench-review-"));
  try {
    const keyFile = path.join(tmp, "key");
    fs.writeFileSync(keyFile, emu.keys.orgAdmin!, { mode: 0o600 });
    return await benchReviewPacket(emu, keyFile, tmp, log);
  } finally {
    await emu.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Whether the second run wrote the same bytes. */
const rerunText = (r: ReviewPacketResult) => (r.differOnRerun.length === 0 ? "identical" : `**differ**: ${r.differOnRerun.join(", ")}`);

/** The review step as a row of the export benchmark's step table (its columns: requests, writes, wall, CLI peak, plugin peak, checkpoint). */
export function reviewStepRow(r: ReviewPacketResult): string {
  return `| review packet (\`pulumi-reviewadmin review\`, ${r.people.toLocaleString("en-US")} people) | ${r.requests} | ${r.writeCount} | ${(r.wallMs / 1000).toFixed(1)} s | ${(r.cliPeakRssBytes / 1024 / 1024).toFixed(0)} MiB | - | - |`;
}

/** The packet's files and review.html in Chromium, as a Markdown table. */
export function reviewPacketMarkdown(r: ReviewPacketResult): string {
  const rows = [
    "| review packet | measured |",
    "|---|---:|",
    ...Object.entries(r.files).map(([f, b]) => `| ${f} | ${mib(b)} |`),
    `| a second review at the same --as-of: review.md, .html, .csv, .json byte for byte | ${rerunText(r)} |`,
  ];
  if (r.html)
    rows.push(
      `| review.html in headless ${r.html.chromium}: load (navigation start to load event, the first page of each table drawn; median of ${r.html.runs}) | ${secs(r.html.loadMs)} |`,
      `| review.html: its script done (from navigation start) | ${secs(r.html.scriptMs)} |`,
      `| review.html: DOM elements once drawn | ${r.html.elements.toLocaleString("en-US")} |`,
      `| review.html: JavaScript heap once drawn (performance.memory) | ${mib(r.html.heapBytes)} |`,
      `| review.html: one filter applied (every table and the grid redrawn and laid out; ${r.html.filterNote}) | ${secs(r.html.filterMs)} |`,
      `| review.html: the filter cleared (the first page of every table and the grid redrawn and laid out) | ${secs(r.html.clearMs)} |`,
    );
  else rows.push(`| review.html in headless Chromium | not measured: ${r.htmlNotMeasured} |`);
  return rows.join("\n");
}

/** The figures as plain text for the terminal. */
export function reviewPacketText(r: ReviewPacketResult): string {
  const lines = [
    `Review packet: ${r.people} people, ${r.requests} requests, ${r.writeCount} writes, ${(r.wallMs / 1000).toFixed(1)} s, CLI peak ${(r.cliPeakRssBytes / 1024 / 1024).toFixed(0)} MiB`,
    ...Object.entries(r.files).map(([f, b]) => `  ${f.padEnd(14)} ${mib(b)}`),
    `  a second review at the same --as-of: ${rerunText(r)}`,
  ];
  lines.push(
    r.html
      ? `  review.html in ${r.html.chromium}: load ${secs(r.html.loadMs)}, script done ${secs(r.html.scriptMs)}, ${r.html.elements} elements, heap ${mib(r.html.heapBytes)}, filter ${secs(r.html.filterMs)} (${r.html.filterNote}), cleared ${secs(r.html.clearMs)}`
      : `  review.html: not measured: ${r.htmlNotMeasured}`,
  );
  return lines.join("\n");
}
