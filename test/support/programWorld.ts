/**
 * The prelude of a program-level test file (whole programs run by the real Pulumi engine, inline
 * programs through the Automation API): one seeded emulator for the file, rate limit raised, and
 * `freshStack`, which resets the world and opens an empty stack that is closed after the test,
 * with any faults the test scripted cleared. Without the Pulumi CLI every test of the file skips
 * and says why (engine.ts).
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { EngineStack } from "../../harness/engineStack";
import { skipWithoutEngine } from "./engine";
import { programFolder } from "./providerWorld";

export interface ProgramWorld {
  /** The file's emulator (started in beforeAll). */
  readonly emu: RunningEmulator;
  /**
   * Resets the emulator to its seeded world and returns an empty stack of `project` using the
   * seeded key `keyName` (default "orgAdmin"), its plugin running in `cwd` (default a program
   * folder of this file's own, where the provider keeps its local records).
   */
  freshStack(keyName?: string, cwd?: string): EngineStack;
}

/** Registers the hooks of a program-level test file and returns its world. */
export function useProgramWorld(project: string): ProgramWorld {
  let emu: RunningEmulator | undefined;
  let stacks: EngineStack[] = [];
  let folder: string | undefined;
  skipWithoutEngine(project);
  beforeAll(async () => {
    emu = await startEmulator({ rateLimit: 0 });
  });
  afterEach(async () => {
    emu?.traffic.faults.clear();
    for (const s of stacks) await s.close();
    stacks = [];
  });
  afterAll(async () => {
    await emu?.close();
  });
  const world: ProgramWorld = {
    get emu() {
      if (!emu) throw new Error("useProgramWorld: the emulator starts in beforeAll");
      return emu;
    },
    // By default the file's own program folder: the provider's local records (.reviewadmin/) of
    // one file's stacks never meet another's, nor the repository's.
    freshStack(keyName = "orgAdmin", cwd = (folder ??= programFolder(`${project}-`))) {
      world.emu.reset();
      world.emu.traffic.log.reset(); // counts start at this test, whatever ran before it
      const stack = new EngineStack({
        cwd,
        project,
        stack: "dev",
        config: {
          "reviewadmin:baseUrl": world.emu.url,
          "reviewadmin:apiKey": world.emu.keys[keyName]!,
          "reviewadmin:requestsPerSecond": "1000",
        },
        secretConfigKeys: ["reviewadmin:apiKey"],
        keepTranscript: true,
      });
      stacks.push(stack);
      return stack;
    },
  };
  return world;
}

/**
 * A mark in the emulator's request log, and the requests after it that are not reads, as
 * "METHOD operation": `const since = writesFrom(emu); ...; expect(since()).toEqual([...])`.
 */
export function writesFrom(emu: RunningEmulator): () => string[] {
  const mark = emu.traffic.log.list().length;
  return () =>
    emu.traffic.log
      .list()
      .slice(mark)
      .filter((e) => e.method !== "GET" && !e.path.startsWith("/_"))
      .map((e) => `${e.method} ${e.operation}`);
}
