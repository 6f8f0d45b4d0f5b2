/**
 * `pulumi-reviewadmin review verify-remediation`: after a sign-off was applied and `up` ran, reads
 * the service again and says, per removal the sign-off decided, whether the access is gone (and
 * when that was confirmed, by the service's clock) or still held. Written into the packet as
 * remediation.json and added to its manifest: proof that removals happened, not a ticket.
 */
import { currentClient } from "../../provider/settings";
import { plural, type Command } from "../command";
import { credentialOptions, credentials } from "../credentials";
import { readAccess, type ExportedAccess } from "../export/read";
import { addToPacket, serviceSecond } from "./manifest";
import { readSignedPacket } from "./readPacket";
import { heldNow } from "./reconcile";
import type { CheckedDecision } from "./signoff";

/** The file verify-remediation adds to the packet. */
export const REMEDIATION_FILE = "remediation.json";

/** One removal and what the service holds now. */
export interface RemovalChecked {
  email: string;
  organizationId: number;
  scope: string;
  /** gone: the service holds the line no more; held: it still does (the removal is not applied yet); unknown: the key cannot read it. */
  status: "gone" | "held" | "unknown";
  /** The permissions still held (held only). */
  holds?: string[];
  /** The service's clock when the read confirmed it (gone only). */
  confirmedAt?: string;
}

/** Whether the line the removal decided is still in what the service answered. */
function check(d: CheckedDecision, access: ExportedAccess, at: string): RemovalChecked {
  const base = { email: d.email, organizationId: d.organizationId, scope: d.line.scope };
  const held = heldNow(d, access);
  if (held === undefined) return { ...base, status: "unknown" };
  return held ? { ...base, status: "held", holds: held } : { ...base, status: "gone", confirmedAt: at };
}

/** The verify-remediation subcommand of review. */
export const remediationCommand: Command = {
  name: "review verify-remediation",
  summary: "re-read the service: is each access the sign-off removed gone?",
  description: `
After a sign-off was applied (review apply-signoff) and the program's up ran, reads the service
again (lists only, the review's reading of the organizations concerned) and, per removal the
sign-off decided, says whether the access is gone, with the service's clock when that was
confirmed, or still held (the removal not applied yet: the pull request not merged, or its end
date not reached). Writes remediation.json into the packet's folder and adds its SHA-256 to the
packet's manifest.json, so \`review verify\` covers it. Exits 1 while any removal is still held.
Credentials as for review.`,
  options: {
    signoff: { type: "string", value: "FILE", help: "the sign-off that was applied (review.csv filled in, another CSV, or JSON)" },
    packet: { type: "string", value: "DIR", help: "the packet's folder: remediation.json is written there and added to its manifest" },
    ...credentialOptions,
    json: { type: "boolean", help: "print the result as JSON" },
  },
  examples: ["pulumi-reviewadmin review verify-remediation --signoff access-review/review.csv --packet access-review"],

  async run(o, io) {
    const { signoffFile, dir, packet, decisions } = readSignedPacket(o);
    const removals = decisions.filter((d) => d.decision === "remove");
    const client = currentClient(credentials(o));
    let access: ExportedAccess;
    let at: string;
    try {
      const organizations = [...new Set(removals.map((d) => d.organizationId))];
      const scope = { organizations, grants: true, invitations: true, identifiers: false };
      access = organizations.length === 0 ? { scope, organizations: [] } : await readAccess(client, scope);
      at = new Date(serviceSecond(client)).toISOString();
    } finally {
      await client.close();
    }
    const checked = removals.map((d) => check(d, access, at));
    const report = { format: "pulumi-reviewadmin remediation 1", review: packet.asOf, checkedAt: at, removals: checked };
    addToPacket(dir, { [REMEDIATION_FILE]: JSON.stringify(report, null, 2) + "\n" });
    const held = checked.filter((c) => c.status !== "gone").length;
    if (o.json === true) io.out(JSON.stringify(report, null, 2));
    else
      io.out(
        [
          `${plural(checked.length, "removal")} of ${signoffFile} checked against the service at ${at}: ${checked.length - held} gone, ${held} not yet.`,
          ...checked.map((c) =>
            c.status === "gone"
              ? `  gone ${c.email} on ${c.scope} of organization ${c.organizationId}: confirmed ${c.confirmedAt}`
              : c.status === "held"
                ? `  not yet applied ${c.email} on ${c.scope} of organization ${c.organizationId}: still holds ${c.holds!.join(" ") || "membership"}`
                : `  unknown ${c.email} on ${c.scope} of organization ${c.organizationId}: the key cannot read it`,
          ),
          `Written to ${dir}/remediation.json and added to its manifest.json.`,
        ].join("\n"),
      );
    return held === 0 ? 0 : 1;
  },
};
