/**
 * `pulumi-reviewadmin review verify FOLDER`: checks a packet's files against its manifest.json
 * (manifest.ts): each file listed must be there with the SHA-256 the review wrote, and no other
 * file may be in the folder. Reads files only: no request to the service.
 */
import * as fs from "node:fs";
import { plural, UsageError, type Command } from "../command";
import { MANIFEST_FILE, sha256, verifyPacket } from "./manifest";
import * as path from "node:path";

/** The verify subcommand of review. */
export const verifyCommand: Command = {
  name: "review verify",
  summary: "check a review packet against its manifest (altered, missing or added files)",
  description: `
Checks the packet in FOLDER against the manifest.json the review wrote there: every file the
manifest lists must be present with the SHA-256 it records, and no file that it does not list
may be in the folder. Prints each file altered, missing or not listed, and exits 1 when there is
any; 0 when the packet is as the review wrote it. Also says whether the manifest records that
the API's counts and the packet's totals agree, and prints the manifest's own SHA-256: keep it
(a commit of the packet keeps it for you) to show the manifest itself was not replaced.`,
  positional: { name: "FOLDER", help: "the packet's folder (holding manifest.json)" },
  options: {
    json: { type: "boolean", help: "print the result as JSON" },
  },
  examples: ["pulumi-reviewadmin review verify access-review"],

  async run(o, io) {
    const dir = o.positional as string | undefined;
    if (dir === undefined) throw new UsageError("FOLDER is required: the packet's folder, holding manifest.json");
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
      throw new UsageError(`FOLDER must be a packet's folder; ${dir} is not a folder`);
    const v = verifyPacket(dir);
    const manifestDigest = sha256(fs.readFileSync(path.join(dir, MANIFEST_FILE)));
    const bad = v.altered.length + v.missing.length + v.unlisted.length;
    if (o.json === true) {
      io.out(
        JSON.stringify(
          {
            folder: dir,
            verified: bad === 0,
            ok: v.ok,
            altered: v.altered,
            missing: v.missing,
            unlisted: v.unlisted,
            countsAgree: v.manifest.agrees,
            manifestSha256: manifestDigest,
          },
          null,
          2,
        ),
      );
      return bad === 0 ? 0 : 1;
    }
    const disagree = (v.manifest.reads ?? []).filter((r) => !r.agrees).map((r) => r.endpoint);
    const lines = [
      bad === 0
        ? `${dir}: the packet is as the review wrote it: ${plural(v.ok.length, "file")} ${v.ok.length === 1 ? "matches" : "match"} manifest.json (as of ${v.manifest.asOf}).`
        : `${dir}: the packet does not match manifest.json: ${v.altered.length} altered, ${v.missing.length} missing, ${v.unlisted.length} not listed.`,
      ...v.altered.map((f) => `  altered ${f}: its SHA-256 is not the one the manifest records`),
      ...v.missing.map((f) => `  missing ${f}`),
      ...v.unlisted.map((f) => `  not listed ${f}: the manifest does not name it`),
      disagree.length === 0
        ? "The manifest records that the API's counts and the packet's totals agree."
        : `The manifest records counts that do not agree with the packet at ${disagree.join(", ")}.`,
      `manifest.json SHA-256 ${manifestDigest}`,
    ];
    io.out(lines.join("\n"));
    return bad === 0 ? 0 : 1;
  },
};
