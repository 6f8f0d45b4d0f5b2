/**
 * `pulumi-reviewadmin review apply-signoff`: a reviewer's sign-off (signoff.ts) checked against
 * the packet and applied to the exported access.ts, which then goes into a pull request. Reads
 * and writes files only: no request to the service.
 */
import * as fs from "node:fs";
import { UsageError, type Command } from "../command";
import { readPacket } from "./readPacket";
import { applyToAccessFile, checkAgainstPacket, parseSignoff } from "./signoff";

function required(o: Record<string, unknown>, name: string): string {
  const v = o[name];
  if (typeof v !== "string" || v.trim() === "") throw new UsageError(`--${name} is required`);
  return v;
}

function readText(option: string, file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(
      `--${option} must name a readable file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** The apply-signoff subcommand of review. */
export const applySignoffCommand: Command = {
  name: "review apply-signoff",
  summary: "apply a reviewer's sign-off to the exported access.ts",
  description: `
Checks a reviewer's sign-off against the review packet and applies it to the access.ts that
\`pulumi-reviewadmin export\` wrote: a removed person's line is deleted, a changed one gets the new
permissions, a kept one stays. Commit the result and open a pull request: its \`pulumi preview\`
shows exactly the decided changes. Nothing is written when any decision is wrong (a person or
scope not in the packet, an unknown permission, two decisions for one line), or when access.ts
and the packet disagree (export and review the same world).

The sign-off: CSV with a header row "email,scope,decision,permissions" (and "organization" when
the packet has several), or JSON (an array of {email, scope, decision, permissions}). scope is
"organization", a database (id, "database <id>" or name) or "all" (every line of the person's
access: keep or remove); decision keep, remove or change;
permissions, for change, separated by spaces, e.g. "DB_UPLOAD DB_LEGAL_HOLD".

Removing a line takes access away only when the exported program removes (authoritative
rosters, or per-person without retainOnDelete); otherwise this command says so.`,
  options: {
    signoff: { type: "string", value: "FILE", help: "the reviewer's sign-off (CSV or JSON)" },
    packet: { type: "string", value: "DIR", help: "the review packet's folder (or its review.json) the sign-off answers" },
    access: { type: "string", value: "FILE", help: "the exported access.ts to change (rewritten in place)" },
    check: { type: "boolean", help: "check the sign-off and print what it would change; write nothing" },
  },
  examples: [
    "pulumi-reviewadmin review apply-signoff --signoff reviews/alice.csv --packet access-review --access access/access.ts",
    "git -C access diff   # the change to propose; its pulumi preview shows the removals",
  ],

  async run(o, io) {
    const signoffFile = required(o, "signoff");
    const packet = readPacket("packet", required(o, "packet"));
    const accessFile = required(o, "access");
    const decisions = checkAgainstPacket(parseSignoff(signoffFile, readText("signoff", signoffFile)), packet);
    const source = readText("access", accessFile);
    if (!source.includes("export const organizations: Organization[] = ["))
      throw new UsageError(`--access must name the access.ts that pulumi-reviewadmin export wrote; ${accessFile} is not one`);
    const result = applyToAccessFile(source, decisions);
    if (o.check !== true && (result.removed.length || result.changed.length)) fs.writeFileSync(accessFile, result.text);
    const lines = [
      `${o.check === true ? "Would apply" : "Applied"} ${decisions.length} decisions of ${signoffFile} to ${accessFile}: ` +
        `${result.removed.length} removed, ${result.changed.length} changed, ${result.kept} kept.`,
      ...result.removed.map((r) => `  remove ${r}`),
      ...result.changed.map((c) => `  change ${c}`),
    ];
    io.out(lines.join("\n"));
    if (result.removed.length && /stops managing/.test(source.slice(0, source.indexOf("*/"))))
      io.err(
        "review apply-signoff: this project does not remove what leaves access.ts (additive rosters or retainOnDelete, see its header): take the access away in the web application too",
      );
    return 0;
  },
};
