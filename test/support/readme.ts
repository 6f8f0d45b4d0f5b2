/**
 * README.md and the user docs whose blocks are run (RUN_DOCS) as data, for the tests that run what
 * they show (test/engine/readme.test.ts) and check what they name (test/cli/readme.test.ts): their
 * fenced blocks with their files, line numbers and sections, the command part of a shell line, the
 * placeholders a user fills in, and the targets of their relative links.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "../../bench/exportedProject";

export { repoRoot };

/**
 * The user docs every fenced block of which test/engine/readme.test.ts runs or
 * test/support/readmeBlocks.ts lists with the reason it does not: the README and the pages its
 * sections moved to. A block is found by a line of its own, whichever of these pages holds it.
 */
export const RUN_DOCS = [
  "README.md",
  "docs/resources.md",
  "docs/configuration.md",
  "docs/onboarding.md",
  "docs/reviews.md",
  "docs/benchmarks.md",
] as const;

/** The text of a file of the repository (a doc: "README.md", "docs/resources.md"). */
export const docText = (file: string): string => fs.readFileSync(path.join(repoRoot, file), "utf8");

/** README.md's text. */
export const readmeText = (): string => docText("README.md");

/** Every fenced block of the RUN_DOCS, in order. */
export const docBlocks = (): Block[] => RUN_DOCS.flatMap((f) => fencedBlocks(docText(f), f));

/** A fenced block of a Markdown file. */
export interface Block {
  /** The file it is in, from the repository root. */
  file: string;
  /** The language after the opening fence ("ts", "sh", ... or "" for none). */
  lang: string;
  /** 1-based line number of the opening fence. */
  line: number;
  /** The "## " section it is in ("" before the first). */
  section: string;
  /** Its lines, without the fences. */
  lines: string[];
}

/** Every fenced block of `text` (the file `file`), in order. */
export function fencedBlocks(text: string, file = "README.md"): Block[] {
  const blocks: Block[] = [];
  let section = "";
  let open: Block | undefined;
  text.split("\n").forEach((l, i) => {
    if (open) {
      if (/^```\s*$/.test(l)) {
        blocks.push(open);
        open = undefined;
      } else open.lines.push(l);
      return;
    }
    const fence = /^```(\S*)/.exec(l);
    if (fence) open = { file, lang: fence[1]!, line: i + 1, section, lines: [] };
    else if (l.startsWith("## ")) section = l.slice(3).trim();
  });
  if (open) throw new Error(`${file}: the block at line ${open.line} is never closed`);
  return blocks;
}

/** Whether `key` is a line of the block: the whole line trimmed, or a shell line's command part. */
export function identifies(b: Block, key: string): boolean {
  return b.lines.some((l) => l.trim() === key || commandPart(l).trim() === key);
}

/** The one block of `blocks` that has the line `key`, or an error saying how many have it. */
export function blockWith(blocks: Block[], key: string): Block {
  const found = blocks.filter((b) => identifies(b, key));
  if (found.length !== 1)
    throw new Error(`${found.length} blocks of the user docs have the line ${JSON.stringify(key)} (test/support/readmeBlocks.ts)`);
  return found[0]!;
}

/** `text` without its fenced blocks (each replaced by an empty line, so paragraphs stay apart). */
export function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```\s*$/gm, "");
}

/** The code spans of `text`'s prose, whitespace (a span broken over two lines) made single spaces. */
export function codeSpans(text: string): string[] {
  return [...prose(text).matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\s+/g, " ").trim());
}

/** A shell line without its comment: up to the first `#` outside quotes that starts a word. */
export function commandPart(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

/** `<...>` placeholders left in a command (shell redirections such as `< file` have a space after `<`). */
export function placeholdersIn(command: string): string[] {
  return [...command.matchAll(/<[^\s<>][^<>]*>/g)].map((m) => m[0]);
}

/**
 * GitHub's anchor of a heading: lower-cased, punctuation but hyphens and underscores dropped,
 * spaces made hyphens.
 */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown file's headings (outside fenced blocks). */
export function headingSlugs(text: string): Set<string> {
  return new Set([...prose(text).matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => headingSlug(m[1]!)));
}

/** Where a block is, for messages: "docs/resources.md line 120". */
export const whereIs = (b: Block): string => `${b.file} line ${b.line}`;

/**
 * Files the docs link to that another change in flight adds, with which: a link to one is not
 * broken while the file is missing, and is checked like any other once it is there.
 */
export const ARRIVING: Record<string, string> = {
  "docs/release.md": "the release's folder and how it is made: issue 56's release change writes it",
};

/**
 * The relative links of `doc` (a file of the repository) that point nowhere: a file that does not
 * exist (but one of ARRIVING), or an #anchor no heading of the target has.
 */
export function brokenLinks(doc: string): string[] {
  const broken: string[] = [];
  for (const { target, file, anchor } of relativeLinks(docText(doc))) {
    const where = file === "" ? path.join(repoRoot, doc) : path.resolve(repoRoot, path.dirname(doc), file);
    if (!fs.existsSync(where) && ARRIVING[path.relative(repoRoot, where)]) continue;
    if (!fs.existsSync(where)) broken.push(`${doc}: ${target}: no such file`);
    else if (anchor && where.endsWith(".md") && !headingSlugs(fs.readFileSync(where, "utf8")).has(anchor))
      broken.push(`${doc}: ${target}: no heading with the anchor #${anchor} in ${path.relative(repoRoot, where)}`);
  }
  return broken;
}

/** The relative links of `text`'s prose: `[label](target)` whose target is not a URL. */
export function relativeLinks(text: string): { target: string; file: string; anchor: string | undefined }[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z]+:/i.test(t))
    .map((target) => {
      const [file, anchor] = target.split("#") as [string, string | undefined];
      return { target, file, anchor };
    });
}
