/**
 * The tests in three tiers, each a vitest project that runs alone (test/README.md says what each
 * proves and how long it takes):
 *
 *   unit     plain values: no server, no child process                       npm run test:unit
 *   service  the emulator or a scripted server in this process, over loopback HTTP, and the
 *            CLI's commands run in this process: no Go, no Pulumi CLI, no dist/   npm run test:service
 *   engine   the real Pulumi CLI (whole programs, the examples, the user docs' blocks, the GitOps
 *            workflows, the plugin face), and whatever runs a process from dist/ (the compiled
 *            bins, the policy pack, the plugin driver) or another program (headless Chromium)
 *                                                                            npm run test:engine
 *
 * `npm test` runs unit and service; `npm run test:all` (CI) runs the three, one after the other
 * (sequence.groupOrder), so that each tier's time can be read off the JSON report
 * (`npm run test:times`).
 *
 * A test file's tier is its folder's, unless the folder mixes tiers and the file is listed in
 * another tier's `elsewhere`. test/tiers.test.ts fails when a file is in no tier or in two.
 */
import { configDefaults, defineConfig } from "vitest/config";

const tests = (folder: string) => `test/${folder}/**/*.test.ts`;

/** Plain values. */
const unit = {
  folders: ["access", "architecture", "contract", "custodians", "policy"],
  elsewhere: [
    "test/cpuProfiles.test.ts",
    "test/gitops.test.ts",
    "test/settings.test.ts",
    "test/tiers.test.ts",
    "test/userDocs.test.ts",
    "test/cli/reviewHtml.test.ts",
    "test/cli/reviewSeverity.test.ts",
    "test/cli/reviewSignoffCsv.test.ts",
    "test/data/exports.test.ts",
    "test/emulator/handlerTypes.test.ts",
    "test/resources/checkUnchanged.test.ts",
    "test/resources/declaredElsewhere.test.ts",
    "test/resources/diffFields.test.ts",
    "test/resources/emailRule.test.ts",
    "test/resources/expiryRules.test.ts",
    "test/resources/heldMessages.test.ts",
    "test/resources/outputsMatch.test.ts",
    "test/resources/registrationStacks.test.ts",
  ],
};

/** A server in this process, over loopback HTTP. */
const service = {
  folders: ["cli", "client", "data", "emulator", "reliability", "resources"],
  elsewhere: [
    "test/upload.test.ts",
    "test/access/memberWrites.test.ts",
    "test/access/splitList.test.ts",
    "test/contract/apiKey.test.ts",
    // What a machine without the Pulumi CLI sees (the demo's and `npm run example`'s one line):
    // they look for the CLI (`pulumi version`, tools/pulumi-cli/build.sh --check) and find none.
    "test/examples.test.ts",
    "test/runExample.test.ts",
    // preview.yml's comment step run by bash on printed previews: a shell, no Pulumi CLI.
    "test/previewComment.test.ts",
  ],
};

/** The real Pulumi CLI, and processes started from dist/. */
const engine = { folders: ["engine", "harness", "plugin"], elsewhere: [] };

type Tier = typeof unit;
const tiers = { unit, service, engine };

/** The vitest project of a tier: its folders and its files elsewhere, but not the files other tiers take from its folders. */
function project(name: keyof typeof tiers, groupOrder: number, globalSetup: string[] = []) {
  const tier: Tier = tiers[name];
  const others = Object.values(tiers).filter((t) => t !== tier);
  return {
    extends: true,
    test: {
      name,
      include: [...tier.folders.map(tests), ...tier.elsewhere],
      exclude: [...configDefaults.exclude, ...others.flatMap((t) => t.elsewhere)],
      globalSetup,
      sequence: { groupOrder },
    },
  };
}

export default defineConfig({
  test: {
    // A program-level test runs several `pulumi up`s (each a CLI, a language host and a plugin
    // process); on two busy cores one took 65 s where it takes 26 s alone. The limit is for a
    // hang, not a speed check.
    testTimeout: 150_000,
    hookTimeout: 60_000,
    // Two cores: the plugin-backed tests start child processes, so keep parallelism modest.
    maxWorkers: 2,
    // Every run leaves a JSON report where `npm run test:times` reads it (gitignored); reporters
    // given on the command line (.ci/run's) replace these.
    reporters: ["default", "json"],
    outputFile: { json: "test-artifacts/vitest.json" },
    projects: [
      project("unit", 0),
      project("service", 1),
      // dist/ as the sources are now (the compiled bins, the policy pack and the plugin run from
      // it), then the Pulumi CLI: found, or built once (test/support/engineSetup.ts).
      project("engine", 2, ["test/support/buildSetup.ts", "test/support/engineSetup.ts"]),
    ],
  },
});
