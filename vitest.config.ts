import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The Pulumi CLI for the engine tests: found, or built once (test/support/engineSetup.ts).
    globalSetup: ["test/support/engineSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: the plugin-backed tests start child processes, so keep parallelism modest.
    maxWorkers: 2,
  },
});
