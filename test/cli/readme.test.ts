/**
 * Every fenced block of README.md is run by test/engine/readme.test.ts or listed with why it is not
 * (test/support/readmeBlocks.ts), and what it names exists as named: every relative link points to a file that exists (and its
 * #anchor to a heading there), every `pulumi-reviewadmin` command and flag it shows is in that
 * command's --help (run in this process), every `npm run` script in package.json, and every
 * version in a command is package.json's. The `pulumi` commands and the benchmarks' flags:
 * test/engine/readmeCommands.test.ts; the blocks themselves: test/engine/readme.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { fencedBlocks, headingSlugs, identifies, readmeText, relativeLinks, repoRoot } from "../support/readme";
import { NOT_RUN, PROGRAMS, SCRIPT, STORIES } from "../support/readmeBlocks";
import { commandLines, segments, wrongClaims } from "../support/readmeCommands";

const readme = readmeText();
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  version: string;
  scripts: Record<string, string>;
};

describe("README.md's blocks", () => {
  it("each is run by test/engine/readme.test.ts, or listed with the reason it is not", () => {
    const blocks = fencedBlocks(readme);
    const keys = [...PROGRAMS.map((p) => p.block), ...Object.values(STORIES).map((s) => s.block), SCRIPT.block, ...Object.keys(NOT_RUN)];
    const unlisted = blocks
      .filter((b) => !keys.some((k) => identifies(b, k)))
      .map(
        (b) =>
          `README block at line ${b.line} (\`\`\`${b.lang}, "${b.lines[0]}") is not run: add it to PROGRAMS, STORIES, SCRIPT or NOT_RUN in test/support/readmeBlocks.ts (or, if it is there, update the line that names it)`,
      );
    expect(unlisted).toEqual([]);
    // ...and each entry names exactly one block.
    const stale = keys.map((k) => ({ k, n: blocks.filter((b) => identifies(b, k)).length })).filter(({ n }) => n !== 1);
    expect(stale.map(({ k, n }) => `${n} README blocks have the line ${JSON.stringify(k)}`)).toEqual([]);
    expect(blocks.length).toBe(keys.length);
  });
});

describe("README.md names what exists", () => {
  it("every relative link points to a file that exists, and its anchor to a heading there", () => {
    const links = relativeLinks(readme);
    expect(links.length).toBeGreaterThan(10);
    const broken: string[] = [];
    for (const { target, file, anchor } of links) {
      const where = file === "" ? path.join(repoRoot, "README.md") : path.join(repoRoot, file);
      if (!fs.existsSync(where)) broken.push(`${target}: no such file`);
      else if (anchor && where.endsWith(".md") && !headingSlugs(fs.readFileSync(where, "utf8")).has(anchor))
        broken.push(`${target}: no heading with the anchor #${anchor} in ${file || "README.md"}`);
    }
    expect(broken).toEqual([]);
  });

  it("every pulumi-reviewadmin command and flag it shows is in that command's --help", async () => {
    const { wrong, checked } = await wrongClaims(["pulumi-reviewadmin"]);
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  it("every npm run script and .ci script it names exists", () => {
    const missing: string[] = [];
    for (const { text } of commandLines())
      for (const words of segments(text)) {
        if (words[0] === "npm" && words[1] === "run" && words[2] && !(words[2] in pkg.scripts)) missing.push(`npm run ${words[2]}`);
        if (words[0] === "bash" && words[1] && !fs.existsSync(path.join(repoRoot, words[1]))) missing.push(words.join(" "));
      }
    expect(missing).toEqual([]);
  });

  it("every version in a command is package.json's", () => {
    const versions = [...readme.matchAll(/pulumi-reviewadmin-(\d+\.\d+\.\d+)\.tgz|#v(\d+\.\d+\.\d+)/g)].map((m) => m[1] ?? m[2]);
    expect(versions.length).toBeGreaterThan(0);
    expect(versions.filter((v) => v !== pkg.version)).toEqual([]);
  });
});
