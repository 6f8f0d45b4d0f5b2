/**
 * Every fenced block of README.md and of the user docs its sections moved to (RUN_DOCS,
 * test/support/readme.ts) is run by test/engine/readme.test.ts or listed with why it is not
 * (test/support/readmeBlocks.ts), and what they name exists as named: every relative link points
 * to a file that exists (and its #anchor to a heading there), every `pulumi-reviewadmin` command
 * and flag they show is in that command's --help (run in this process), every `npm run` script in
 * package.json, and every version in a command is package.json's. The `pulumi` commands and the
 * benchmarks' flags: test/engine/readmeCommands.test.ts; the blocks themselves:
 * test/engine/readme.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { brokenLinks, docBlocks, docText, identifies, relativeLinks, repoRoot, RUN_DOCS, whereIs } from "../support/readme";
import { NOT_RUN, PROGRAMS, SCRIPT, STORIES } from "../support/readmeBlocks";
import { commandLines, segments, wrongClaims } from "../support/readmeCommands";

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  version: string;
  scripts: Record<string, string>;
};

describe("the user docs' blocks (README.md and RUN_DOCS)", () => {
  it("each is run by test/engine/readme.test.ts, or listed with the reason it is not", () => {
    const blocks = docBlocks();
    const keys = [...PROGRAMS.map((p) => p.block), ...Object.values(STORIES).map((s) => s.block), SCRIPT.block, ...Object.keys(NOT_RUN)];
    const unlisted = blocks
      .filter((b) => !keys.some((k) => identifies(b, k)))
      .map(
        (b) =>
          `the block at ${whereIs(b)} (\`\`\`${b.lang}, "${b.lines[0]}") is not run: add it to PROGRAMS, STORIES, SCRIPT or NOT_RUN in test/support/readmeBlocks.ts (or, if it is there, update the line that names it)`,
      );
    expect(unlisted).toEqual([]);
    // ...and each entry names exactly one block.
    const stale = keys.map((k) => ({ k, n: blocks.filter((b) => identifies(b, k)).length })).filter(({ n }) => n !== 1);
    expect(stale.map(({ k, n }) => `${n} blocks of the user docs have the line ${JSON.stringify(k)}`)).toEqual([]);
    expect(blocks.length).toBe(keys.length);
  });
});

describe("the user docs name what exists", () => {
  it("every relative link points to a file that exists, and its anchor to a heading there", () => {
    expect(RUN_DOCS.reduce((n, d) => n + relativeLinks(docText(d)).length, 0)).toBeGreaterThan(40);
    expect(RUN_DOCS.flatMap(brokenLinks)).toEqual([]);
  });

  it("every pulumi-reviewadmin command and flag they show is in that command's --help", async () => {
    const { wrong, checked } = await wrongClaims(["pulumi-reviewadmin"]);
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  it("every npm run script and .ci script they name exists", () => {
    const missing: string[] = [];
    for (const { text } of commandLines())
      for (const words of segments(text)) {
        if (words[0] === "npm" && words[1] === "run" && words[2] && !(words[2] in pkg.scripts)) missing.push(`npm run ${words[2]}`);
        if (words[0] === "bash" && words[1] && !fs.existsSync(path.join(repoRoot, words[1]))) missing.push(words.join(" "));
      }
    expect(missing).toEqual([]);
  });

  it("every version in a command is package.json's: the tarball, the plugin archive, the plugin install", () => {
    const text = RUN_DOCS.map(docText).join("\n");
    const versions = [
      ...text.matchAll(
        /pulumi-reviewadmin-(\d+\.\d+\.\d+)\.tgz|#v(\d+\.\d+\.\d+)|pulumi-resource-reviewadmin-v(\d+\.\d+\.\d+)-|resource reviewadmin (\d+\.\d+\.\d+)/g,
      ),
    ].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]);
    expect(versions.length).toBeGreaterThan(4);
    expect(versions.filter((v) => v !== pkg.version)).toEqual([]);
  });
});
