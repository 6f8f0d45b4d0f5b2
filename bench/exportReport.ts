/**
 * The export benchmark's figures (export.ts) as a plain-text report for the terminal and as
 * Markdown for bench/results: every step, the review packet and preview, the goals, and each
 * step against its floor (rateFloors.ts).
 */
import type { ExportBenchResult, ExportPhase } from "./export";
import { floorsMarkdown } from "./rateFloors";
import { reviewPacketMarkdown, reviewPacketText, reviewStepRow } from "./reviewPacket";

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;

/** The runs under the engine, each with its label in the Markdown table and in the terminal's report. */
function enginePhases(r: ExportBenchResult): { label: string; short: string; phase: ExportPhase }[] {
  const row = (label: string, short: string, phase: ExportPhase | undefined) => (phase ? [{ label, short, phase }] : []);
  return [
    ...row("engine: first up of the exported program", "engine: first up", r.firstUp),
    ...row("engine: no-change up", "engine: no-change up", r.noChangeUp),
    ...row("engine: the same, with PULUMI_PARALLEL_DIFF=true", "  with PULUMI_PARALLEL_DIFF", r.noChangeUpParallelDiff),
    ...row("engine: refresh", "engine: refresh", r.refresh),
    ...row("no-change `pulumi up` at a shell (no event stream)", "no-change `pulumi up`", r.noChangeUpCli),
    ...row("`pulumi refresh` at a shell (no event stream)", "`pulumi refresh`", r.refreshCli),
    ...row("engine floor: no-change `pulumi up` of as many resources that do nothing", "engine floor: up", r.engineFloor?.noChangeUp),
    ...row("engine floor: `pulumi preview --diff` of the same", "engine floor: preview", r.engineFloor?.preview),
  ];
}

/** The figures as a plain-text report for the terminal. */
export function exportText(r: ExportBenchResult): string {
  const w = r.world;
  const lines = [
    `Export benchmark: ${w.organizationMembers} members (${w.members} synthetic + ${w.databases} x ${w.usersPerDatabase} database users + seeded), ${w.databasesExported} databases exported`,
    `  export: ${r.export.requests} requests (bound ${r.listBound}), ${secs(r.export.wallMs)}; access.ts ${r.export.accessLines} lines; tsc ${r.tsc.ok ? "ok" : "FAILED"} in ${secs(r.tsc.wallMs)}`,
  ];
  for (const { short: label, phase: p } of enginePhases(r)) {
    lines.push(
      `  ${label.padEnd(22)} ${String(p.requests).padStart(5)} requests, ${p.writeCount} writes, ${secs(p.wallMs).padStart(7)}, plugin peak ${mib(p.pluginPeakRssBytes)}, CLI peak ${mib(p.cliPeakRssBytes)}, checkpoint ${mib(p.checkpointBytes)}, steps ${JSON.stringify(p.steps)}`,
    );
  }
  const rp = r.reviewPreview;
  lines.push(
    `  review preview (${rp.change}): ${rp.preview.lines} lines, ${rp.preview.bytes} bytes, ${secs(rp.preview.wallMs)}` +
      (rp.baseline ? `; baseline ${rp.baseline.lines} lines, ${rp.baseline.bytes} bytes, ${secs(rp.baseline.wallMs)}` : ""),
  );
  lines.push(reviewPacketText(r.reviewPacket).replace(/^/gm, "  "));
  if (r.stateShow) lines.push(`  state show of the stack's export: ${r.stateShow.people} people, ${secs(r.stateShow.wallMs)}`);
  if (r.reviewWithStack)
    lines.push(`  review --stack-state of the stack's export: ${r.reviewWithStack.requests} requests, ${secs(r.reviewWithStack.wallMs)}`);
  lines.push(`  world unchanged: ${r.worldUnchanged ? "yes" : "NO"}`, "Goals:");
  for (const g of r.goals) lines.push(`  [${g.met ? "met" : "NOT MET"}] ${g.description}: ${g.measured} (limit ${g.limit})`);
  for (const f of r.floors ?? [])
    lines.push(
      `  [${f.met ? "met" : "NOT MET"}] ${f.step}: ${secs(f.wallMs)} against ${f.floor === "rate" ? `${secs(f.floorMs)} (${f.requests} requests), ${f.ratio!.toFixed(2)}x` : `the engine's ${secs(f.floorMs)}`}`,
    );
  return lines.join("\n");
}

/** The figures as Markdown, for bench/results/ (docs/benchmarks.md quotes them). */
export function exportMarkdown(r: ExportBenchResult, title = "Export"): string {
  const w = r.world;
  const out = [
    w.organizations > 1
      ? `### ${title}: ${(w.people ?? w.organizationMembers).toLocaleString("en-US")} people in ${w.organizations} organizations (${w.organizationMembers.toLocaleString("en-US")} memberships), ${w.databasesExported} databases`
      : `### ${title}: ${w.organizationMembers.toLocaleString("en-US")} members, ${w.databasesExported} databases`,
    "",
    w.organizations > 1
      ? `Each of the ${w.organizations} organizations gets ${w.members.toLocaleString("en-US")} synthetic members and ${w.databases} databases × ${w.usersPerDatabase} users (new members too), and ${w.sharedMembers ?? 0} of its members join the next organization too; one key, one project, one stack; emulator and clients at ${r.rateLimit.emulatorPerSecond} requests/s. List bound: Σ ceil(members/200) + Σ ceil(users/200) + 5 per organization = ${r.listBound}.`
      : `${w.members.toLocaleString("en-US")} synthetic members and ${w.databases} databases × ${w.usersPerDatabase} users (new members too) added to the seeded organization; emulator and clients at ${r.rateLimit.emulatorPerSecond} requests/s. List bound: ceil(members/200) + Σ ceil(users/200) + 5 = ${r.listBound}.`,
    "",
    "| step | requests | writes | wall | CLI peak memory | plugin peak memory | checkpoint |",
    "|---|---:|---:|---:|---:|---:|---:|",
    `| export (\`pulumi-reviewadmin export\`) | ${r.export.requests} | ${r.export.writeCount} | ${secs(r.export.wallMs)} | - | - | - |`,
    `| tsc of the exported project (${r.export.accessLines.toLocaleString("en-US")}-line access.ts) | - | - | ${secs(r.tsc.wallMs)} | - | - | - |`,
    ...enginePhases(r).map(
      ({ label, phase: p }) =>
        `| ${label} | ${p.requests} | ${label.includes("first up") ? `**${p.writeCount}**` : p.writeCount} | ${secs(p.wallMs)} | ${mib(p.cliPeakRssBytes)} | ${mib(p.pluginPeakRssBytes)} | ${mib(p.checkpointBytes)} |`,
    ),
    reviewStepRow(r.reviewPacket),
    ...(r.stateShow
      ? [
          `| \`pulumi-reviewadmin state show\` of \`pulumi stack export\` (${mib(r.stateShow.exportBytes)}; ${r.stateShow.people.toLocaleString("en-US")} people declared, ${mib(r.stateShow.outputBytes)} printed; offline) | 0 | 0 | ${secs(r.stateShow.wallMs)} | - | - | - |`,
        ]
      : []),
    ...(r.reviewWithStack
      ? [
          `| review packet judged against the stack (\`review --stack-state\` of that export, as review.yml runs it: the in-code flags) | ${r.reviewWithStack.requests} | 0 | ${secs(r.reviewWithStack.wallMs)} | - | - | - |`,
        ]
      : []),
    "",
    "The review packet of the same world (the row 'review packet' above: `pulumi-reviewadmin review --firm-domain northwind.example`, reads only), each file's size, and review.html opened in headless Chromium:",
    "",
    reviewPacketMarkdown(r.reviewPacket),
    "",
    `The access review of one pull request (${r.reviewPreview.change}), \`pulumi preview --diff\` at a shell (as a pull request's pipeline runs it)${r.reviewPreview.baseline ? ", against the baseline of the same preview with the rosters' `hideDiffs` taken off (every entry printed, as before 0.3.0)" : ""}:`,
    "",
    "| preview | lines | characters | wall |",
    "|---|---:|---:|---:|",
    `| one line per person who changes | ${r.reviewPreview.preview.lines} | ${r.reviewPreview.preview.bytes.toLocaleString("en-US")} | ${secs(r.reviewPreview.preview.wallMs)} |`,
    ...(r.reviewPreview.baseline
      ? [
          `| baseline: every roster entry | ${r.reviewPreview.baseline.lines.toLocaleString("en-US")} | ${r.reviewPreview.baseline.bytes.toLocaleString("en-US")} | ${secs(r.reviewPreview.baseline.wallMs)} |`,
        ]
      : []),
    "",
    ...(r.floors
      ? [
          "Each step against its floor, in the same run: a step that sends requests against its requests at 25 per second (goal: within 1.1x), one that sends none against the engine's own floor for as many resources that do nothing (goal: within 1.5 s):",
          "",
          floorsMarkdown(r.floors),
          "",
        ]
      : []),
    "| goal | limit | measured | met |",
    "|---|---:|---:|---|",
    ...r.goals.map((g) => `| ${g.description} | ${g.limit} | ${g.measured} | ${g.met ? "yes" : "**no**"} |`),
    "",
    ...r.notes.map((n) => `- ${n}`),
  ];
  return out.join("\n");
}
