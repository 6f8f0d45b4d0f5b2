/**
 * The scale benchmark's goals, judged on its figures, and its reports (terminal text, Markdown).
 */
import {
  GOAL_CONSTANT,
  PHASE_LABEL,
  PHASES,
  PROGRAM_VARIANTS,
  opLabel,
  type Goal,
  type ProgramVariant,
  type ScaleResult,
  type ScaleWorld,
  type Phase,
  type VariantResult,
  VARIANT_LABEL,
} from "./scaleWorld";

/** The goals of the issue, computed from the figures; judged under the real engine. */
export function goalsOf(size: ScaleWorld, v: ScaleResult["variants"]): Goal[] {
  const programs = ranIn(v);
  const per = (f: (r: VariantResult) => number, only?: ProgramVariant[]) =>
    Object.fromEntries(programs.filter((k) => !only || only.includes(k)).map((k) => [k, f(v[k]!)]));
  const goal = (id: string, description: string, limit: number | null, measured: Record<string, number>): Goal => ({
    id,
    description,
    limit,
    measured,
    met: Object.values(measured).every((m) => (limit === null ? m === 0 : m <= limit)),
  });
  const N = size.members;
  const dbUsers = size.databases * size.usersPerDatabase;
  const secs1 = (ms: number) => Math.round(ms / 100) / 10;
  const tunedGoals = v.perMemberTuned
    ? (["create", "destroy"] as const).map((phase) =>
        goal(
          `per-member-${phase}-vs-naive`,
          `per-member program (${N} OrgMember + ${dbUsers} DatabaseUserPermissions), tuned as docs/gitops.md recommends: ${PHASE_LABEL[phase]} no slower than the naive script's (seconds)`,
          secs1(v.naive.phases[phase].wallMs),
          { perMemberTuned: secs1(v.perMemberTuned!.phases[phase].wallMs) },
        ),
      )
    : [];
  return [
    ...tunedGoals,
    goal(
      "refresh-members",
      `refresh of ${N} members: member requests (E2, E13-E15, E18-E22) at most ceil(N/200) + ${GOAL_CONSTANT}`,
      Math.ceil(N / 200) + GOAL_CONSTANT,
      per((r) => r.phases.refresh.memberRequests),
    ),
    goal(
      "create-members",
      `creating ${N} members with one permission set as a roster: member requests at most ceil(N/100) + ${GOAL_CONSTANT} (per-member creates cannot batch beyond the engine's workers: see the notes)`,
      Math.ceil(N / 100) + GOAL_CONSTANT,
      per((r) => r.phases.create.memberRequests, ["rosters"]),
    ),
    goal(
      "no-429",
      "no 429 at all, in any phase of any variant (naive baseline included)",
      null,
      Object.fromEntries(Object.entries(v).map(([k, r]) => [k, PHASES.reduce((n, p) => n + r.phases[p].throttled, 0)])),
    ),
    goal(
      "no-change-up",
      "a no-change up sends no request",
      null,
      per((r) => r.phases.noChangeUp.requests),
    ),
    goal(
      "refresh-database-users",
      `refresh of ${dbUsers} database users: one list per database, at most databases x ceil(U/200) + ${GOAL_CONSTANT}`,
      size.databases * Math.ceil(size.usersPerDatabase / 200) + GOAL_CONSTANT,
      per((r) => r.phases.refresh.databaseUserRequests),
    ),
    goal(
      "phases-verified",
      "the emulator holds what each phase should leave (count of phases that did not)",
      null,
      Object.fromEntries(Object.entries(v).map(([k, r]) => [k, PHASES.filter((p) => !r.phases[p].verified.ok).length])),
    ),
  ];
}

const secs = (ms: number) => (ms / 1000).toFixed(1);
const cap = (t: string) => t[0]!.toUpperCase() + t.slice(1);

/** The program variants the run measured, in PROGRAM_VARIANTS' order. */
export const ranIn = (v: ScaleResult["variants"]): ProgramVariant[] => PROGRAM_VARIANTS.filter((k) => v[k] !== undefined);
const times = (r: number | null) => (r === null ? "-" : `${r.toFixed(2)}x`);

/** "mean 25, median 16, max 100; sizes 100 51 16 ..." */
export function batchSummary(sizes: number[]): string {
  const sorted = [...sizes].sort((a, b) => a - b);
  const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  const median = sorted[Math.floor(sorted.length / 2)];
  const shown = sizes.length > 40 ? `${sizes.slice(0, 40).join(" ")} ...` : sizes.join(" ");
  return `mean ${mean.toFixed(1)}, median ${median}, max ${sorted[sorted.length - 1]}; in order: ${shown}`;
}

/** The figures as a plain-text report for the terminal. */
export function scaleText(r: ScaleResult): string {
  const lines: string[] = [];
  const { world: w } = r;
  lines.push(
    `Scale benchmark: ${w.members} members, ${w.databases} databases x ${w.usersPerDatabase} users (${w.databaseUsers} database users), organization ${w.organizationId}`,
  );
  lines.push(`Emulator limit ${r.rateLimit.emulatorPerSecond} req/s per account; client ${r.rateLimit.clientPerSecond} req/s.`);
  for (const k of [...ranIn(r.variants), "naive"] as const) {
    const v = r.variants[k]!;
    lines.push("");
    lines.push(`${k}: ${v.description}`);
    lines.push(`  driven by ${v.driver}`);
    lines.push(
      `  ${"phase".padEnd(18)} ${"requests".padStart(8)} ${"vs naive".padStart(9)} ${"wall s".padStart(8)} ${"vs naive".padStart(9)} ${"floor s".padStart(8)} ${"429s".padStart(5)}  by operation`,
    );
    for (const p of PHASES) {
      const x = v.phases[p];
      const rr = k === "naive" ? null : r.ratios[k]![p];
      const ops = Object.entries(x.byOperation)
        .map(([op, n]) => `${opLabel(op).split(" ")[0]}:${n}`)
        .join(" ");
      lines.push(
        `  ${PHASE_LABEL[p].padEnd(18)} ${String(x.requests).padStart(8)} ${(rr ? times(rr.requests) : "").padStart(9)} ${secs(x.wallMs).padStart(8)} ${(rr ? times(rr.wall) : "").padStart(9)} ${secs(x.rateFloorMs).padStart(8)} ${String(x.throttled).padStart(5)}  ${ops}${x.verified.ok ? "" : `  VERIFY FAILED: ${x.verified.detail}`}`,
      );
      if (x.timeline) lines.push(`  ${"".padEnd(18)} ${timelineText(x)}`);
      if (x.memory)
        lines.push(
          `  ${"".padEnd(18)} peak memory: CLI ${mib(x.memory.cli)}, plugin ${mib(x.memory.plugin)}; checkpoint ${mib(x.checkpointBytes ?? 0)}`,
        );
    }
  }
  lines.push("");
  for (const k of ranIn(r.variants)) {
    const sizes = r.variants[k]!.phases.create.e19BatchSizes ?? [];
    if (sizes.length)
      lines.push(`${k} create: ${sizes.length} E19 calls for ${sizes.reduce((a, b) => a + b, 0)} people: ${batchSummary(sizes)}`);
  }
  lines.push("");
  lines.push("Goals:");
  for (const g of r.goals) {
    const measured = Object.entries(g.measured)
      .map(([k, m]) => `${k} ${m}`)
      .join(", ");
    lines.push(`  [${g.met ? "met" : "NOT MET"}] ${g.description}${g.limit !== null ? ` (limit ${g.limit})` : ""}: ${measured}`);
  }
  lines.push(`All goals met: ${r.allGoalsMet ? "yes" : "NO"}. Total ${secs(r.totalWallMs)} s.`);
  return lines.join("\n");
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** "1.9 s before the first request, 168.6 s of requests (floor 168.5 s), 2.6 s after the last" */
const timelineText = (x: VariantResult["phases"][Phase]) =>
  `${secs(x.timeline!.beforeFirstMs)} s before the first request, ${secs(x.timeline!.requestsMs)} s of requests (floor ${secs(x.rateFloorMs)} s), ${secs(x.timeline!.afterLastMs)} s after the last`;

/** The figures as Markdown, for bench/results/ (docs/benchmarks.md quotes them). */
export function scaleMarkdown(r: ScaleResult): string {
  const { world: w } = r;
  const out: string[] = [];
  out.push(`### Scale: ${w.members.toLocaleString("en-US")} members, ${w.databases} databases × ${w.usersPerDatabase} users`);
  out.push("");
  const ran = ranIn(r.variants);
  const nv = r.variants.naive;
  out.push(
    `Emulator at the service's ${r.rateLimit.emulatorPerSecond} requests/s, client at its default ${r.rateLimit.clientPerSecond}/s. ` +
      ran.map((k) => `${cap(VARIANT_LABEL[k])}: ${r.variants[k]!.description}, driven by ${r.variants[k]!.driver}. `).join("") +
      `Naive: ${nv.description}.`,
  );
  out.push("");
  out.push("Requests (wall time), by phase; the ratio is to the naive baseline:");
  out.push("");
  out.push(`| phase | naive | ${ran.map((k) => VARIANT_LABEL[k]).join(" | ")} | 429s |`);
  out.push(`|---|---:|${ran.map(() => "---:|").join("")}---:|`);
  for (const p of PHASES) {
    const cell = (k: ProgramVariant) => {
      const x = r.variants[k]!.phases[p];
      const rr = r.ratios[k]![p].requests;
      return `${x.requests}${rr === null ? "" : ` (${times(rr)})`}, ${secs(x.wallMs)} s`;
    };
    const t429 = Object.values(r.variants).reduce((n, v) => n + (v?.phases[p].throttled ?? 0), 0);
    out.push(`| ${PHASE_LABEL[p]} | ${nv.phases[p].requests}, ${secs(nv.phases[p].wallMs)} s | ${ran.map(cell).join(" | ")} | ${t429} |`);
  }
  out.push("");
  out.push("Under the engine, peak resident memory of the CLI and of the dynamic-provider plugin, and the checkpoint after each phase:");
  out.push("");
  out.push(`| phase | ${ran.map((k) => `${VARIANT_LABEL[k]}: CLI | plugin | checkpoint`).join(" | ")} |`);
  out.push(`|---|${ran.map(() => "---:|---:|---:|").join("")}`);
  for (const p of PHASES) {
    const m = (k: ProgramVariant) => {
      const x = r.variants[k]!.phases[p];
      return `${mib(x.memory?.cli ?? 0)} | ${mib(x.memory?.plugin ?? 0)} | ${mib(x.checkpointBytes ?? 0)}`;
    };
    out.push(`| ${PHASE_LABEL[p]} | ${ran.map(m).join(" | ")} |`);
  }
  out.push("");
  out.push("Where each phase's wall time went, from the emulator's log (the requests span against the client's floor for them):");
  out.push("");
  out.push(`| phase | ${ran.map((k) => VARIANT_LABEL[k]).join(" | ")} |`);
  out.push(`|---|${ran.map(() => "---|").join("")}`);
  for (const p of PHASES) {
    const t = (k: ProgramVariant) => {
      const x = r.variants[k]!.phases[p];
      return x.timeline ? timelineText(x) : "no request";
    };
    out.push(`| ${PHASE_LABEL[p]} | ${ran.map(t).join(" | ")} |`);
  }
  for (const k of ran) {
    const sizes = r.variants[k]!.phases.create.e19BatchSizes ?? [];
    if (!sizes.length) continue;
    const sorted = [...sizes].sort((a, b) => a - b);
    out.push("");
    out.push(
      `${VARIANT_LABEL[k]} create sent ${sizes.length} E19 calls for ${sizes.reduce((a, b) => a + b, 0)} people (median ${sorted[Math.floor(sorted.length / 2)]}, largest ${sorted[sorted.length - 1]} per call).`,
    );
  }
  out.push("");
  out.push("Goals, judged under the engine:");
  out.push("");
  out.push(`| goal | limit | ${ran.map((k) => VARIANT_LABEL[k]).join(" | ")} | met |`);
  out.push(`|---|---:|${ran.map(() => "---:|").join("")}---|`);
  for (const g of r.goals) {
    const m = (k: string) => (g.measured[k] === undefined ? "-" : String(g.measured[k]));
    const extra = g.measured.naive !== undefined ? ` (naive ${g.measured.naive})` : "";
    out.push(`| ${g.description}${extra} | ${g.limit ?? 0} | ${ran.map(m).join(" | ")} | ${g.met ? "yes" : "**no**"} |`);
  }
  out.push("");
  for (const n of r.notes) out.push(`- ${n}`);
  return out.join("\n");
}
