import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The Pulumi CLI for the engine tests: found, or built once (test/support/engineSetup.ts).
    globalSetup: ["test/support/engineSetup.ts"],
    // A program-level test runs several `pulumi up`s (each a CLI, a language host and a plugin
    // process); on two busy cores one took 65 s where it takes 26 s alone. The limit is for a
    // hang, not a speed check.
    testTimeout: 150_000,
    hookTimeout: 60_000,
    // Two cores: the plugin-backed tests start child processes, so keep parallelism modest.
    maxWorkers: 2,
  },
});
