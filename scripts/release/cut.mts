/**
 * The files a release rewrites, as text (nothing is written here): CHANGELOG.md's "Unreleased"
 * becomes the version's section, dated, under a new empty "Unreleased", and the state
 * compatibility table's "Unreleased" row becomes the version's; the version in package.json,
 * package-lock.json and the policy pack's package.json; and every example's dependency on the
 * package (`^0.2.0` → `^0.3.0`: in 0.x a caret range never reaches the next minor, so an example
 * left behind would make npm fetch the package by name instead of linking this one); and the
 * release's file names in the docs' install lines (README.md, CONTRIBUTING.md, docs/*.md), which
 * test/cli/readme.test.ts holds to package.json's version.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const PACKAGE = "pulumi-reviewadmin";

/** The text of CHANGELOG.md with its Unreleased section cut as `version` on `date` (YYYY-MM-DD); throws when there is nothing to cut. */
export function cutChangelog(text: string, version: string, date: string): string {
  const heading = "\n## Unreleased\n";
  const start = text.indexOf(heading);
  if (start === -1) throw new Error('CHANGELOG.md has no "## Unreleased" section');
  if (text.includes(`\n## ${version} (`)) throw new Error(`CHANGELOG.md already has a section for ${version}`);
  const bodyStart = start + heading.length;
  const next = text.indexOf("\n## ", bodyStart);
  const body = text.slice(bodyStart, next === -1 ? text.length : next + 1);
  if (body.trim() === "") throw new Error("CHANGELOG.md's Unreleased section is empty: nothing to release");
  const head = text.slice(0, start).replace(/^\| Unreleased \|/m, `| ${version} |`);
  return `${head}${heading}\n## ${version} (${date})\n${body.replace(/^\n+/, "\n")}${next === -1 ? "" : text.slice(next + 1)}`;
}

/** The fields of a package.json, or of a package-lock.json and its packages, that a release changes. */
interface PackageJson {
  version?: string;
  dependencies?: Record<string, string>;
  packages?: Record<string, PackageJson>;
}

/** `text` (a package.json or lockfile) parsed, changed by `edit`, and written back as npm writes it. */
function editJson(text: string, edit: (json: PackageJson) => void): string {
  const json = JSON.parse(text) as PackageJson;
  edit(json);
  return JSON.stringify(json, null, 2) + "\n";
}

/** A dependency range on this package moved to `version` (`^0.2.0` → `^0.3.0`); other ranges left as they are. */
function moveRange(deps: Record<string, string> | undefined, from: string, version: string): void {
  if (deps?.[PACKAGE] === `^${from}`) deps[PACKAGE] = `^${version}`;
}

/**
 * `text` (a doc) with the install lines of release `from` naming release `to`: the npm tarball
 * (`pulumi-reviewadmin-0.2.0.tgz`), the plugin archive (`pulumi-resource-reviewadmin-v0.2.0-...`),
 * `pulumi plugin install resource reviewadmin 0.2.0` and a git tag (`#v0.2.0`). Prose naming a
 * version ("since 0.2.0") is left as it is.
 */
export function moveDocVersions(text: string, from: string, to: string): string {
  const v = from.replace(/\./g, "\\.");
  return text
    .replace(new RegExp(`pulumi-reviewadmin-${v}\\.tgz`, "g"), `pulumi-reviewadmin-${to}.tgz`)
    .replace(new RegExp(`pulumi-resource-reviewadmin-v${v}-`, "g"), `pulumi-resource-reviewadmin-v${to}-`)
    .replace(new RegExp(`resource reviewadmin ${v}(?= )`, "g"), `resource reviewadmin ${to}`)
    .replace(new RegExp(`#v${v}\\b`, "g"), `#v${to}`);
}

/** Every file the release of `version` rewrites under `root`, by path relative to it, with its new text. */
export function cutFiles(root: string, version: string, date: string): Map<string, string> {
  const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");
  const from = (JSON.parse(read("package.json")) as { version: string }).version;
  const files = new Map<string, string>();
  files.set("CHANGELOG.md", cutChangelog(read("CHANGELOG.md"), version, date));
  files.set(
    "package.json",
    editJson(read("package.json"), (j) => void (j.version = version)),
  );
  files.set(
    "package-lock.json",
    editJson(read("package-lock.json"), (j) => {
      j.version = version;
      for (const [where, pkg] of Object.entries(j.packages ?? {})) {
        if (where === "") pkg.version = version;
        moveRange(pkg.dependencies, from, version);
      }
    }),
  );
  files.set(
    "policy/package.json",
    editJson(read("policy/package.json"), (j) => void (j.version = version)),
  );
  for (const example of fs.readdirSync(path.join(root, "examples")).sort()) {
    const file = `examples/${example}/package.json`;
    if (!fs.existsSync(path.join(root, file))) continue;
    const text = read(file);
    const moved = editJson(text, (j) => moveRange(j.dependencies, from, version));
    if (JSON.stringify(JSON.parse(moved)) !== JSON.stringify(JSON.parse(text))) files.set(file, moved);
  }
  const docs = fs.existsSync(path.join(root, "docs"))
    ? fs
        .readdirSync(path.join(root, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`)
    : [];
  for (const doc of ["README.md", "CONTRIBUTING.md", ...docs.sort()]) {
    if (!fs.existsSync(path.join(root, doc))) continue;
    const text = read(doc);
    const moved = moveDocVersions(text, from, version);
    if (moved !== text) files.set(doc, moved);
  }
  return files;
}
