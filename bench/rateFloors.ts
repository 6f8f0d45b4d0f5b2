/**
 * Each step's wall time against its floor (issue 57): a step that sends requests against the rate
 * floor (its requests at the service's 25 per second; goal: within 1.1x), a step that sends none
 * (or so few that the engine's floor is higher) against the engine's own floor for as many
 * resources that do nothing (engineFloor.ts; goal: within 1.5 s of it).
 */

/** The service's rate limit per key, requests per second. */
export const RATE = 25;
/** Goal: a step that sends requests within this multiple of its rate floor. */
export const RATE_RATIO_GOAL = 1.1;
/** Goal: a step that sends none within this many ms of the engine's floor. */
export const ENGINE_SLACK_GOAL_MS = 1500;

/** One step against its floor. */
export interface FloorRow {
  step: string;
  requests: number;
  writes: number;
  wallMs: number;
  /** "rate": requests / RATE; "engine": the engine's floor measured in the same run. */
  floor: "rate" | "engine";
  floorMs: number;
  /** wall / floor ("rate" rows). */
  ratio?: number;
  /** wall - floor ("engine" rows). */
  overMs?: number;
  met: boolean;
  /** From the emulator's log: before the first request, the requests, after the last answer (ms). */
  timeline?: { beforeFirstMs: number; requestsMs: number; afterLastMs: number };
}

/**
 * A step judged against the higher of its floors: its rate floor, or the engine's own
 * (`engineFloorMs`, when given) where that is higher (always, for a step that sends no request).
 */
export function floorRow(step: string, requests: number, writes: number, wallMs: number, engineFloorMs?: number): FloorRow {
  if (engineFloorMs !== undefined && engineFloorMs >= (requests / RATE) * 1000) {
    const overMs = wallMs - engineFloorMs;
    return { step, requests, writes, wallMs, floor: "engine", floorMs: engineFloorMs, overMs, met: overMs <= ENGINE_SLACK_GOAL_MS };
  }
  const floorMs = (requests / RATE) * 1000;
  const ratio = floorMs > 0 ? wallMs / floorMs : Infinity;
  return { step, requests, writes, wallMs, floor: "rate", floorMs, ratio, met: ratio <= RATE_RATIO_GOAL };
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The rows as a Markdown table. */
export function floorsMarkdown(rows: FloorRow[]): string {
  const timed = rows.some((r) => r.timeline);
  const split = (r: FloorRow) =>
    !timed
      ? ""
      : r.timeline
        ? ` ${secs(r.timeline.beforeFirstMs)} / ${secs(r.timeline.requestsMs)} / ${secs(r.timeline.afterLastMs)} |`
        : " - |";
  return [
    `| step | requests | writes | wall | floor | wall against floor | goal met |${timed ? " before the first request / requests / after the last |" : ""}`,
    `|---|---:|---:|---:|---|---:|---|${timed ? "---:|" : ""}`,
    ...rows.map((r) => {
      const floor = r.floor === "rate" ? `${secs(r.floorMs)} (${r.requests} / ${RATE} per s)` : `${secs(r.floorMs)} (engine's own)`;
      const against =
        r.floor === "rate"
          ? r.ratio === Infinity
            ? "-"
            : `${r.ratio!.toFixed(2)}x`
          : `${r.overMs! >= 0 ? "+" : ""}${(r.overMs! / 1000).toFixed(1)} s`;
      const goal = r.floor === "rate" ? `within ${RATE_RATIO_GOAL}x` : `within ${ENGINE_SLACK_GOAL_MS / 1000} s`;
      return `| ${r.step} | ${r.requests} | ${r.writes} | ${secs(r.wallMs)} | ${floor} | ${against} | ${r.met ? "yes" : "**no**"} (${goal}) |${split(r)}`;
    }),
  ].join("\n");
}
