/**
 * How the package's executables name the build they are (`--version` of the CLI and of the
 * plugin): the version, and the commit scripts/build.js stamped into dist/build-info.json.
 */

/** What a build knows of its commit: the commit and whether its tree had uncommitted changes, or why none. */
export interface BuildStamp {
  commit?: string | null;
  dirty?: boolean;
  why?: string;
}

/** `0.3.0 (commit <sha>)`, `0.3.0 (commit <sha>, with uncommitted changes)` or `0.3.0 (<why no commit>)`. */
export function versionText(version: string, build: BuildStamp): string {
  if (!build.commit) return `${version} (${build.why ?? "commit not known"})`;
  return `${version} (commit ${build.commit}${build.dirty ? ", with uncommitted changes" : ""})`;
}
