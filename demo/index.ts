#!/usr/bin/env node
/**
 * `npm run demo`: access as code end to end, on one machine, with nothing to set up. Starts the
 * seeded emulator in this process, applies the access-baseline example, changes access behind
 * the program's back as a person in the web application would, finds the drift with a refresh
 * and repairs it with an up, under the real Pulumi CLI (Automation API); without the CLI it says
 * how to get it. `main` is exported so a test can run it with a captured writer.
 */
// First: on an old Node, one line saying which Node is needed, before the imports below crash.
import "../cli/requireNode";
import { SEEDED, startEmulator, type RunningEmulator } from "../emulator";
import { EngineStack } from "../harness/engineStack";
import { exampleProject, pulumiCli, shownRun } from "./exampleStack";
import { accessView, describeAccessChanges, type AccessView } from "./platform";
import { outputLines, stepLines } from "./report";

/** The --help text. */
export const USAGE = `Usage: npm run demo
       node dist/demo/index.js [--help]

Shows access as code end to end on this machine, with nothing to set up:
  1. starts the emulator of the review platform's admin API (its seeded world, in this process),
  2. applies the access-baseline example (examples/access-baseline) with pulumi up,
  3. runs pulumi up again: nothing changes,
  4. changes access behind the program's back, as a person in the web application would,
  5. runs pulumi refresh and shows the drift it finds,
  6. runs pulumi up to put the baseline back, and checks the platform against the baseline.

It runs the real Pulumi CLI through the Automation API, with a local file backend in a temporary
folder (no login): the CLI on PATH (\`pulumi version\` works), or the one \`npm run pulumi-cli\`
built. Without it, it says how to get it and exits with code 1.

Options:
  --help      show this text
`;

/** The line the demo ends with when the drift was found and the baseline restored. */
export const SUCCESS_LINE = "Result: drift found and repaired. The platform matches the baseline again.";

const PROJECT = "access-baseline";

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
 * Runs the demo; returns the exit code (0: drift found and repaired, 1: something failed or the
 * Pulumi CLI is missing, 2: bad command line). Everything is written through `write`, plain text.
 */
export async function main(argv: readonly string[], write: (text: string) => void): Promise<number> {
  const say = (...lines: string[]) => write(lines.map((l) => `${l}\n`).join(""));
  for (const arg of argv) {
    if (arg === "--help" || arg === "-h") {
      write(USAGE);
      return 0;
    }
    write(`Unknown option ${arg}\n\n${USAGE}`);
    return 2;
  }
  const cli = pulumiCli("npm run demo");
  if ("missing" in cli) {
    say(cli.missing);
    return 1;
  }

  say("Review admin: access as code, drift found and repaired", "=".repeat(56), "");
  say(
    `Pulumi CLI found (${cli.version}): running the program with the real CLI through the Automation API,`,
    "with a local file backend in a temporary folder (no login).",
  );

  const { program } = exampleProject(PROJECT);
  let emu: RunningEmulator | undefined;
  let stack: EngineStack | undefined;
  try {
    emu = await startEmulator();
    const orgId = SEEDED.org;
    const org = emu.store.organizations.get(orgId).name;
    say(
      "",
      `1. The emulator of the admin API is listening on ${emu.url} (seeded world, 25 requests/s).`,
      `   The program acts with an org admin's API key (Ada Lovelace, organization ${orgId} "${org}").`,
    );

    stack = new EngineStack({
      project: PROJECT,
      stack: "demo",
      config: {
        "reviewadmin:baseUrl": emu.url,
        "reviewadmin:apiKey": emu.keys.orgAdmin,
        [`${PROJECT}:organizationId`]: String(orgId),
      },
      secretConfigKeys: ["reviewadmin:apiKey"],
    });
    const view = () => accessView(emu!.store, orgId);

    // 2. Apply the baseline.
    const initial = view();
    say("", `2. pulumi up: apply the access baseline (examples/${PROJECT}/access.ts)`);
    const first = await shownRun(stack, (s) => s.up(program));
    const baseline = view();
    say(
      ...stepLines(first),
      ...platformLines(initial, baseline),
      "  Stack outputs:",
      ...outputLines(first.result.outputs),
      `  (${seconds(first.wallMs)})`,
    );

    // 3. Idempotence.
    say("", "3. pulumi up again: the platform already matches the program, so nothing changes");
    const second = await shownRun(stack, (s) => s.up(program, { expectNoChanges: true }));
    say(...stepLines(second), `  (${seconds(second.wallMs)})`);

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
    const refresh = await shownRun(stack, (s) => s.refresh());
    const drift = refresh.result.steps.filter((s) => s.op === "refresh-changed" || s.op === "refresh-gone");
    say(
      ...stepLines(refresh),
      `  Drift found in ${drift.length} of ${refresh.result.steps.length} resources: ${
        drift
          .map((s) => s.name)
          .sort()
          .join(", ") || "none"
      }.`,
      `  (${seconds(refresh.wallMs)})`,
    );

    // 6. Up puts the baseline back.
    say("", "6. pulumi up: put the baseline back");
    const repair = await shownRun(stack, (s) => s.up(program));
    const repaired = view();
    say(...stepLines(repair), ...platformLines(drifted, repaired), `  (${seconds(repair.wallMs)})`);

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
