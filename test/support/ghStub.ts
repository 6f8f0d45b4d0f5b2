/**
 * A stand-in for the GitHub CLI (`gh`) on a runner's PATH, for the workflow files that call it
 * (review.yml's `gh pr create`, preview.yml's `gh pr comment`): a bash script that records each
 * call's arguments and the token it was given, keeps a copy of each `--body-file` (what GitHub
 * would show as the pull request or comment), and prints a pull request's URL.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** What the stub was asked. */
export interface GhStub {
  /** The folder holding `gh`, to put on the runner's PATH. */
  bin: string;
  /** Every call so far: its arguments one per line, then `GH_TOKEN=...`, then `--`. */
  record(): string;
  /** The calls so far, each its arguments. */
  calls(): string[][];
  /** The bodies given with `--body-file`, oldest first. */
  bodies(): string[];
}

/** Writes the stub into `dir` (made), its records beside it. */
export function writeGhStub(dir: string): GhStub {
  const bin = path.join(dir, "bin");
  const record = path.join(dir, "gh-calls.txt");
  const bodies = path.join(dir, "gh-bodies");
  fs.mkdirSync(bin, { recursive: true });
  fs.mkdirSync(bodies, { recursive: true });
  const script = `#!/usr/bin/env bash
# A stand-in for the GitHub CLI: records its arguments and its token, one per line, and a copy of --body-file.
{ printf '%s\\n' "$@"; echo "GH_TOKEN=\${GH_TOKEN:-}"; echo "--"; } >> ${JSON.stringify(record)}
prev=""
for arg in "$@"; do
  if [ "$prev" = "--body-file" ]; then cp "$arg" ${JSON.stringify(bodies)}/"$(printf '%04d' "$(ls ${JSON.stringify(bodies)} | wc -l)")".md; fi
  prev="$arg"
done
echo "https://github.com/acme/access/pull/8"
`;
  fs.writeFileSync(path.join(bin, "gh"), script, { mode: 0o755 });
  const read = () => (fs.existsSync(record) ? fs.readFileSync(record, "utf8") : "");
  return {
    bin,
    record: read,
    calls: () =>
      read()
        .split("--\n")
        .filter((c) => c !== "")
        .map((c) => c.split("\n").filter((l) => l !== "" && !l.startsWith("GH_TOKEN="))),
    bodies: () =>
      fs
        .readdirSync(bodies)
        .sort()
        .map((f) => fs.readFileSync(path.join(bodies, f), "utf8")),
  };
}
