/**
 * A signed packet: `review apply-signoff` keeps each sign-off it applied in the packet's folder
 * (`signoff-<its SHA-256's first 12 digits>.json|.csv`) and records it in manifest.json
 * (`signoffs`: who, the attestation, the day, the file's hash). The packet is then evidence of a
 * decision, and `review --out` never replaces it, not even with --force.
 */
import * as path from "node:path";
import { addToPacket, readManifest, sha256, type Manifest, type SignoffRecord } from "./manifest";
import type { Signoff } from "./signoff";

/** The sign-offs a packet's manifest records (none for an unsigned packet, or one written before 0.3.0). */
export function signoffsOf(manifest: Manifest): SignoffRecord[] {
  return Array.isArray(manifest.signoffs) ? manifest.signoffs : [];
}

/** "signed off by Ada Lovelace on 2026-12-02" for each sign-off of the manifest, joined; undefined when unsigned. */
export function signedText(manifest: Manifest): string | undefined {
  const all = signoffsOf(manifest);
  if (all.length === 0) return undefined;
  return all.map((s) => `signed off by ${s.reviewer ?? "an unnamed reviewer"} on ${s.on}`).join(", ");
}

/**
 * Keeps the sign-off `text` (read from `source`) in the packet folder `dir` and records it in the
 * manifest; applying the same file again records nothing new. Returns the record.
 */
export function recordSignoff(dir: string, source: string, text: string, signoff: Signoff, on: string, reviewer: string): SignoffRecord {
  const digest = sha256(text);
  const file = `signoff-${digest.slice(0, 12)}${path.extname(source).toLowerCase() === ".json" ? ".json" : ".csv"}`;
  const manifest = readManifest(dir, "--packet");
  const known = signoffsOf(manifest).find((s) => s.sha256 === digest);
  if (known) return known;
  const rowReviewers = [...new Set(signoff.decisions.map((d) => d.reviewer).filter((r) => r !== ""))];
  const count = (k: "keep" | "remove" | "change") => signoff.decisions.filter((d) => d.decision === k).length;
  const record: SignoffRecord = {
    file,
    sha256: digest,
    reviewer: signoff.reviewer ?? (rowReviewers.length ? rowReviewers.join(", ") : reviewer || null),
    attestation: signoff.attestation ?? null,
    on,
    ...(signoff.signedAt ? { signedAt: signoff.signedAt } : {}),
    decisions: { keep: count("keep"), remove: count("remove"), change: count("change"), undecided: signoff.undecided.length },
  };
  addToPacket(dir, { [file]: text }, { signoffs: [...signoffsOf(manifest), record] });
  return record;
}
