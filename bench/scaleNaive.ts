/**
 * The scale benchmark's naive baseline (see scale.ts): the same work done with the project's HTTP
 * client, one request per resource, nothing shared; run in a worker thread beside the programs.
 */
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { ReviewAdminClient } from "../provider/client";
import {
  CLIENT_RATE,
  DB_PERMISSIONS,
  ORG,
  ORG_PERMISSIONS,
  PHASE_LABEL,
  makeWorld,
  measure,
  verifyWorld,
  type Phase,
  type PhaseResult,
  type ScaleWorld,
  type VariantResult,
} from "./scaleWorld";

/** Runs `fn` over `items` with at most `limit` in flight. */
async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The naive baseline, in this thread. */
export async function naiveVariant(size: ScaleWorld, parallel: number, log: (line: string) => void): Promise<VariantResult> {
  const w = await makeWorld(size);
  const client = new ReviewAdminClient({ baseUrl: w.emu.url, apiKey: w.key, requestsPerSecond: CLIENT_RATE });
  type Job = () => Promise<unknown>;
  const all = (jobs: Job[]) => mapLimit(jobs, parallel, (j) => j());
  const phases = {} as Record<Phase, PhaseResult>;
  try {
    const step = async (phase: Phase, run: () => Promise<void>, verify: () => { ok: boolean; detail: string }) => {
      log(`  naive: ${PHASE_LABEL[phase]}...`);
      phases[phase] = await measure(w, run, verify);
      const r = phases[phase];
      log(
        `  naive: ${PHASE_LABEL[phase]}: ${r.requests} requests, ${(r.wallMs / 1000).toFixed(1)} s, ${r.throttled} 429s; ${r.verified.detail}`,
      );
    };
    await step(
      "create",
      () =>
        all([
          ...w.members.map(
            (p) => () =>
              client.call(
                "PostOrganizationUsers",
                { orgId: ORG },
                { users: [{ email: p.email, firstName: "", lastName: "" }], permissions: [...ORG_PERMISSIONS] },
              ),
          ),
          ...w.grants.map(
            (g) => () =>
              client.call("PutDatabaseUser", { databaseId: g.databaseId, userId: g.userId }, { databasePermissions: [...DB_PERMISSIONS] }),
          ),
        ]),
      () => verifyWorld(w, "present"),
    );
    // Nothing changed and a preview without refresh reads nothing: no request at all.
    await step(
      "noChangeUp",
      async () => {},
      () => verifyWorld(w, "present"),
    );
    await step(
      "refresh",
      () =>
        all([
          ...w.members.map((p) => () => client.call("GetOrganizationUser", { orgId: ORG, userId: p.userId })),
          ...w.grants.map((g) => () => client.call("GetDatabaseUser", { databaseId: g.databaseId, userId: g.userId })),
        ]),
      () => verifyWorld(w, "present"),
    );
    await step(
      "destroy",
      () =>
        all([
          ...w.grants.map((g) => () => client.call("DeleteDatabaseUser", { databaseId: g.databaseId, userId: g.userId })),
          ...w.members.map((p) => () => client.call("DeleteOrganizationUser", { orgId: ORG, userId: p.userId })),
        ]),
      () => verifyWorld(w, "gone"),
    );
  } finally {
    await client.close();
    await w.emu.close();
  }
  return {
    name: "naive",
    description: "one request per resource, nothing shared: E19 (one person) + E26 to create, E21 + E25 to refresh, E20 + E24 to destroy",
    resources: 0,
    driver: `the project's ReviewAdminClient at ${CLIENT_RATE}/s, ${parallel} requests in flight`,
    phases,
  };
}

/** What the main thread sends the naive worker, and what it answers. */
interface NaiveWorkerData {
  benchScaleNaive: { size: ScaleWorld; parallel: number };
}
type NaiveWorkerMessage = { log: string } | { result: VariantResult } | { error: string };

/** The naive baseline in a worker thread: its own event loop, emulator and client limiter. */
export function naiveInWorker(
  size: ScaleWorld,
  parallel: number,
  log: (line: string) => void,
): { result: Promise<VariantResult>; stop: () => Promise<unknown> } {
  const data: NaiveWorkerData = { benchScaleNaive: { size, parallel } };
  const worker = new Worker(__filename, { workerData: data });
  const result = new Promise<VariantResult>((resolve, reject) => {
    let settled = false;
    worker.on("message", (m: NaiveWorkerMessage) => {
      if ("log" in m) log(m.log);
      else {
        settled = true;
        if ("result" in m) resolve(m.result);
        else reject(new Error(`naive baseline: ${m.error}`));
      }
    });
    worker.on("error", (e) => ((settled = true), reject(e)));
    worker.on("exit", (code) => {
      if (!settled) reject(new Error(`naive baseline worker exited with code ${code} before answering`));
    });
  });
  return { result, stop: () => worker.terminate() };
}

if (!isMainThread && (workerData as NaiveWorkerData | undefined)?.benchScaleNaive) {
  const { size, parallel } = (workerData as NaiveWorkerData).benchScaleNaive;
  const post = (m: NaiveWorkerMessage) => parentPort!.postMessage(m);
  naiveVariant(size, parallel, (line) => post({ log: line })).then(
    (result) => post({ result }),
    (e) => post({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  );
}
