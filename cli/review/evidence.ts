/**
 * What ties a review packet to what made it (issue 55), for its manifest: the build of this tool
 * (its version and the commit it was built from, stamped by scripts/build.js), the access
 * repository the review ran in (its commit, and whether it had uncommitted changes), and the API
 * key (its ID, the one part that may be shown, and the user it acts as). And the rule that keeps
 * the evidence: `review --out` never replaces a packet silently, nor a signed one at all.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { apiKeyParts } from "../../contract/apiKey";
import { personText } from "../../contract/people";
import type { User } from "../../contract/types";
import { UsageError } from "../command";
import { packageRoot } from "../packageInfo";
import { MANIFEST_FILE, readManifest } from "./manifest";
import { signedText } from "./signed";

/** A git working tree's commit, and whether it had changes not committed (untracked files count). */
export interface GitState {
  commit: string;
  dirty: boolean;
}

/** The commit and state of the git working tree holding `dir`, or why there is none. */
export function gitState(dir: string): GitState | { why: string } {
  const git = (...args: string[]) => spawnSync("git", ["-C", dir, ...args], { encoding: "utf8" });
  const head = git("rev-parse", "HEAD");
  if (head.error) return { why: "git is not installed here" };
  if (head.status !== 0) return { why: `${dir} is not in a git repository with a commit` };
  const status = git("status", "--porcelain");
  return { commit: head.stdout.trim(), dirty: status.status === 0 ? status.stdout.trim() !== "" : true };
}

/** The file scripts/build.js writes into dist/: the version and the commit the build was made from. */
export const BUILD_INFO = "build-info.json";

/** This tool's build: stamped into dist/ at build time, else (running from a source checkout) read from its git. */
export function toolBuild(): (Partial<GitState> & { from: string }) | { why: string; from: string } {
  const root = packageRoot();
  const stamped = path.join(root, "dist", BUILD_INFO);
  // Only the compiled tool reads its stamp: from source, dist/ may be an older build.
  if (__dirname.split(path.sep).includes("dist") && fs.existsSync(stamped)) {
    const info = JSON.parse(fs.readFileSync(stamped, "utf8")) as { commit?: string | null; dirty?: boolean; why?: string };
    return info.commit
      ? { commit: info.commit, dirty: !!info.dirty, from: "stamped at build" }
      : { why: info.why ?? "not stamped", from: "stamped at build" };
  }
  return { ...gitState(root), from: "the source checkout it runs from" };
}

/** The API key as evidence: its ID (never the secret) and who it acts as ("Ada Lovelace <ada@...> (user 1001)"). */
export function keyEvidence(apiKey: string, me: User | undefined): { id: string | null; actsAs: string | null } {
  return { id: apiKeyParts(apiKey)?.id ?? null, actsAs: me ? personText({ ...me, userId: me.id }) : null };
}

/**
 * Refuses to write a packet into `out` when it holds one already, unless `force`, or `previous`
 * names that very folder (read first: the documented monthly rewrite of the committed packet,
 * whose history git keeps). Before any request.
 */
export function assertMayWritePacket(out: string, force: boolean, previous: string | undefined): void {
  if (!fs.existsSync(path.join(out, MANIFEST_FILE))) return;
  let signed: string | undefined;
  try {
    signed = signedText(readManifest(out));
  } catch {
    signed = undefined; // not a manifest a review wrote: --force decides, as for any packet
  }
  if (signed)
    throw new UsageError(
      `--out ${out} holds a signed review packet (${signed}): a signed packet is the evidence of that review and is never replaced, not even with --force; write the new review into a folder of its own (the monthly workflow writes access-review/<year-month>/) and name this one with --previous`,
    );
  if (force) return;
  const same = previous !== undefined && path.resolve(previous.endsWith(".json") ? path.dirname(previous) : previous) === path.resolve(out);
  if (!same)
    throw new UsageError(
      `--out ${out} holds a review packet already: pass --force to replace it, or --previous ${out} to replace it with what changed since`,
    );
}
