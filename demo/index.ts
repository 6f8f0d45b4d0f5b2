#!/usr/bin/env node
/**
 * `npm run demo`: access as code end to end, on one machine, with nothing to set up. Starts the
 * seeded emulator in this process, applies the access-baseline example, changes access behind
 * the program's back as a person in the web application would, finds the drift with a refresh
 * and repairs it with an up. Uses the real Pulumi CLI (Automation API) when it is installed,
 * else the bundled plugin harness. `main` is exported so a test can run it with a captured writer.
 */
// First: on an old Node, one line saying which Node is needed, before the imports below crash.
import "../cli/requireNode";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { SEEDED, startEmulator, type RunningEmulator } from "../emulator";
import { accessView, describeAccessChanges, type AccessView } from "./platform";
import { cliStack, harnessStack, hasPulumiCli, type Stack as DemoStack } from "../harness/twoEngines";
import { outputLines, stepLines } from "./report";

/** The --help text. */
export const USAGE = `Usage: npm run demo [-- --harness]
       node dist/demo/index.js [--harness] [--help]

Shows access as code end to end on this machine, with nothing to set up:
  1. starts the emulator of the review platform's admin API (its seeded world, in this process),
  2. applies the access-baseline example (examples/access-baseline) with pulumi up,
  3. runs pulumi up again: nothing changes,
  4. changes access behind the program's back, as a person in the web application would,
  5. runs pulumi refresh and shows the drift it finds,
  6. runs pulumi up to put the baseline back, and checks the platform against the baseline.

With the Pulumi CLI on PATH (\`pulumi version\` works), or built by \`npm run pulumi-cli\`, it runs
the real CLI through the Automation API, with a local file backend in a temporary folder (no
login). Without it, it runs the same program through the bundled plugin harness (the real
dynamic-provider plugin over gRPC).

Options:
  --harness   use the bundled plugin harness even when the Pulumi CLI is installed
  --help      show this text
`;

/** The line the demo ends with when the drift was found and the baseline restored. */
export const SUCCESS_LINE = "Result: drift found and repaired. The platform matches the baseline again.";

const PROJECT = "access-baseline";

/** The example's folders: the source (Pulumi.yaml, the project folder) and the program to run. */
function locateExample(): { projectDir: string; program: string } {
  // Run from dist/demo (npm run demo) or from demo/ (a test importing the source).
  const roots = [path.resolve(__dirname, ".."), path.resolve(__dirname, "../..")];
  const projectDir = roots.map((r) => path.join(r, "examples", PROJECT)).find((d) => fs.existsSync(path.join(d, "Pulumi.yaml")));
  if (!projectDir) throw new Error(`cannot find examples/${PROJECT}/Pulumi.yaml next to ${__dirname}`);
  // Prefer the compiled program beside this file (dist/examples/...), else the TypeScript source.
  const compiled = path.resolve(__dirname, "../examples", PROJECT, "index.js");
  return { projectDir, program: fs.existsSync(compiled) ? compiled : path.join(projectDir, "index.ts") };
}

function cliVersion(): string {
  const r = spawnSync("pulumi", ["version"], { encoding: "utf8", timeout: 20_000 });
  return (r.stdout ?? "").trim();
}

function platformLines(before: AccessView, after: AccessView): string[] {
  const changes = describeAccessChanges(before, after);
  return ["  In the platform:", ...(changes.length > 0 ? changes.map((c) => `    ${c}`) : ["    no change"])];
}

async function control(emu: RunningEmulator, method: string, route: string, body?: unknown): Promise<void> {
  const res = await fetch(`${emu.url}/_emulator${route}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`emulator control ${method} ${route}: ${res.status} ${await res.text()}`);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Runs the demo; returns the exit code (0: drift found and repaired, 1: something failed,
 * 2: bad command line). Everything is written through `write`, plain text.
 */
export async function main(argv: readonly string[], write: (text: string) => void): Promise<number> {
  const say = (...lines: string[]) => write(lines.map((l) => `${l}\n`).join(""));
  let forceHarness = false;
  for (const arg of argv) {
    if (arg === "--help" || arg === "-h") {
      write(USAGE);
      return 0;
    }
    if (arg === "--harness") forceHarness = true;
    else {
      write(`Unknown option ${arg}\n\n${USAGE}`);
      return 2;
    }
  }

  say("Review admin: access as code, drift found and repaired", "=".repeat(56), "");
  const useCli = !forceHarness && hasPulumiCli();
  if (useCli) {
    say(
      `Pulumi CLI found (${cliVersion()}): running the program with the real CLI through the Automation API,`,
      "with a local file backend in a temporary folder (no login).",
    );
  } else if (forceHarness) {
    say("--harness: running the program through the bundled plugin harness (the real dynamic-provider plugin over gRPC).");
  } else {
    say("Pulumi CLI not found: running the program through the bundled plugin harness (the real dynamic-provider plugin over gRPC).");
  }

  const { projectDir, program } = locateExample();
  let emu: RunningEmulator | undefined;
  let stack: DemoStack | undefined;
  try {
    emu = await startEmulator();
    const orgId = SEEDED.org;
    const org = emu.store.organizations.get(orgId).name;
    say(
      "",
      `1. The emulator of the admin API is listening on ${emu.url} (seeded world, 25 requests/s).`,
      `   The program acts with an org admin's API key (Ada Lovelace, organization ${orgId} "${org}").`,
    );

    const args = {
      project: PROJECT,
      stack: "demo",
      program,
      config: {
        "reviewadmin:baseUrl": emu.url,
        "reviewadmin:apiKey": emu.keys.orgAdmin,
        [`${PROJECT}:organizationId`]: String(orgId),
      },
      secretConfigKeys: ["reviewadmin:apiKey"],
    };
    // The CLI runs the program in its entry file's folder; the harness runs it in the project folder, as `pulumi up` there would.
    stack = useCli ? await cliStack(args) : harnessStack({ ...args, cwd: projectDir });

    const view = () => accessView(emu!.store, orgId);
    const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
      const t0 = Date.now();
      const r = await fn();
      return [r, Date.now() - t0];
    };

    // 2. Apply the baseline.
    const initial = view();
    say("", `2. pulumi up: apply the access baseline (examples/${PROJECT}/access.ts)`);
    const [first, t1] = await timed(() => stack!.up());
    const baseline = view();
    say(...stepLines(first), ...platformLines(initial, baseline), "  Stack outputs:", ...outputLines(first.outputs), `  (${seconds(t1)})`);

    // 3. Idempotence.
    say("", "3. pulumi up again: the platform already matches the program, so nothing changes");
    const [second, t2] = await timed(() => stack!.up({ expectNoChanges: true }));
    say(...stepLines(second), `  (${seconds(t2)})`);

    // 4. Someone changes access in the web application.
    say(
      "",
      "4. Meanwhile, someone changes access in the web application (through the emulator's control API):",
      `     - makes Alan Turing (user ${SEEDED.users.member}) an org admin`,
      `     - takes Ken Thompson's (user ${SEEDED.users.aiAdmin}) permissions on database ${SEEDED.databases.open} away`,
    );
    await control(emu, "PATCH", `/organizations/${orgId}/members/${SEEDED.users.member}`, { permissions: ["ORG_ADMIN"] });
    await control(emu, "DELETE", `/databases/${SEEDED.databases.open}/users/${SEEDED.users.aiAdmin}`);
    const drifted = view();
    say(...platformLines(baseline, drifted));

    // 5. Refresh finds it.
    say("", "5. pulumi refresh: read every resource back from the platform and compare with the state");
    const [refresh, t3] = await timed(() => stack!.refresh());
    const drift = refresh.steps.filter((s) => s.op === "refresh-changed" || s.op === "refresh-gone");
    say(
      ...stepLines(refresh),
      `  Drift found in ${drift.length} of ${refresh.steps.length} resources: ${
        drift
          .map((s) => s.name)
          .sort()
          .join(", ") || "none"
      }.`,
      `  (${seconds(t3)})`,
    );

    // 6. Up puts the baseline back.
    say("", "6. pulumi up: put the baseline back");
    const [repair, t4] = await timed(() => stack!.up());
    const repaired = view();
    say(...stepLines(repair), ...platformLines(drifted, repaired), `  (${seconds(t4)})`);

    const left = describeAccessChanges(baseline, repaired);
    say("");
    if (drift.length === 0) {
      say("Result: FAILED: refresh found no drift.");
      return 1;
    }
    if (left.length > 0) {
      say("Result: FAILED: drift found but not repaired; still different from the baseline:", ...left.map((l) => `  ${l}`));
      return 1;
    }
    say(SUCCESS_LINE);
    return 0;
  } catch (err) {
    say("", `Demo failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await stack?.close();
    await emu?.close();
  }
}

// Run only as a program, not when a test imports main.
if (typeof require !== "undefined" && require.main === module) {
  main(process.argv.slice(2), (t) => process.stdout.write(t)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`demo: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
