/**
 * `pulumi-reviewadmin review reconcile`: after the sign-off's up, one record of what became of
 * each decision (reconcile.ts judges): the change that carried it out, or why not. Reads the
 * service (lists and the activity log of the organizations concerned, no write), the up's engine
 * events and the reviewed plan; writes reconcile.json into the packet and adds it to the manifest.
 */
import { personText } from "../../contract/people";
import type { ActivityEvent } from "../../contract/types";
import { currentClient } from "../../provider/settings";
import { plural, UsageError, type Command } from "../command";
import { credentialOptions, credentials } from "../credentials";
import { readAccess, type ExportedAccess } from "../export/read";
import { readLog } from "./events";
import { addToPacket, serviceSecond, sha256 } from "./manifest";
import { heldNow, reconcileDecision, type Reconciled } from "./reconcile";
import { readOptionFile, readSignedPacket } from "./readPacket";
import { readUpLog, type UpLog } from "./upLog";

/** The file reconcile adds to the packet. */
export const RECONCILE_FILE = "reconcile.json";

/** A saved update plan's steps by resource URN (`pulumi preview --save-plan FILE`). */
function planSteps(file: string, text: string): Map<string, string[]> {
  let plan: { resourcePlans?: Record<string, { steps?: unknown }> };
  try {
    plan = JSON.parse(text) as typeof plan;
  } catch {
    throw new UsageError(`--plan ${file} is not JSON: give the file \`pulumi preview --save-plan FILE\` wrote`);
  }
  if (typeof plan?.resourcePlans !== "object" || plan.resourcePlans === null)
    throw new UsageError(`--plan ${file} holds no resourcePlans: give the file \`pulumi preview --save-plan FILE\` wrote`);
  return new Map(Object.entries(plan.resourcePlans).map(([urn, p]) => [urn, Array.isArray(p?.steps) ? p.steps.map(String) : []]));
}

/** "carried out remove alan@... on organization of organization 102: ..." */
function lineOf(r: Reconciled): string {
  const what = `${r.decision}${r.to ? ` to ${r.to.join(" ") || "no permission"}` : ""} ${r.email} on ${r.scope} of organization ${r.organizationId}`;
  const by = r.change ? ` by ${r.change.resource} (${r.change.op})${r.change.said.length ? `: "${r.change.said[0]}"` : ""}` : "";
  const plan = r.planned ? `; the reviewed plan: ${r.planned.join(", ") || "no step"}` : "";
  return `  ${r.outcome}: ${what}${r.outcome === "refused by anti-lockout" ? "" : by}${r.why ? `: ${r.why}` : ""}${plan}`;
}

/** The reconcile subcommand of review. */
export const reconcileCommand: Command = {
  name: "review reconcile",
  summary: "after the sign-off's up: each decision matched to the change that carried it out, or why not",
  description: `
After a sign-off was applied (review apply-signoff), reviewed in its pull request and the merge's
up ran, writes one record of what became of each decision of the sign-off: carried out (by which
resource's step of the up, with the line the up printed for the person), kept, refused by
anti-lockout (the up's error naming the person), changed again in the web app (who, when, from
the activity log), or not yet applied (nothing changed the line since the review). Reads the
service (lists and the activity log of the organizations concerned; no write), the up's engine
events (--up-log: what \`pulumi up --json\` printed) and, where the pull request saved
one, the reviewed plan (--plan: \`pulumi preview --save-plan FILE\`, applied with \`pulumi up --plan
FILE\`): its SHA-256 is recorded and each decision's resource is matched to the plan's step.
Writes reconcile.json into the packet's folder and adds it to the manifest, so \`review verify\`
covers it. Exits 1 while any remove or change decision is not carried out. Credentials as for review.`,
  options: {
    signoff: { type: "string", value: "FILE", help: "the sign-off that was applied (JSON or CSV, as apply-signoff took it)" },
    packet: { type: "string", value: "DIR", help: "the packet's folder: reconcile.json is written there and added to its manifest" },
    "up-log": {
      type: "string",
      value: "FILE",
      help: "the up's engine events, what `pulumi up --json` printed (its engine events): names the change of each decision",
    },
    plan: {
      type: "string",
      value: "FILE",
      help: "the reviewed plan, written by `pulumi preview --save-plan FILE`: its hash and steps are recorded",
    },
    ...credentialOptions,
    json: { type: "boolean", help: "print the record as JSON" },
  },
  examples: [
    "pulumi up --yes --json --plan plan.json > up-events.json   # the merge's up, applying the reviewed plan",
    "pulumi-reviewadmin review reconcile --signoff signoff.json --packet access-review/2026-12 --up-log up-events.json --plan plan.json",
  ],

  async run(o, io) {
    const { signoffFile, signoffText, dir, packet, decisions } = readSignedPacket(o);
    const upFile = o["up-log"] as string | undefined;
    const upText = upFile === undefined ? undefined : readOptionFile("up-log", upFile);
    const up: UpLog | undefined = upFile === undefined ? undefined : readUpLog(upFile, upText!);
    const planFile = o.plan as string | undefined;
    const planText = planFile === undefined ? undefined : readOptionFile("plan", planFile);
    const plan = planFile === undefined ? undefined : planSteps(planFile, planText!);

    const client = currentClient(credentials(o));
    let access: ExportedAccess;
    const events = new Map<number, ActivityEvent[]>();
    let at: number;
    try {
      const organizations = [...new Set(decisions.map((d) => d.organizationId))];
      const scope = { organizations, grants: true, invitations: true, identifiers: false };
      access = organizations.length === 0 ? { scope, organizations: [] } : await readAccess(client, scope);
      at = serviceSecond(client);
      // The log since the review: who changed a line after it, the program's key or someone in the web app.
      // To the end of the service's second: `at` is floored to the whole second its Date header gives.
      for (const org of organizations) events.set(org, (await readLog(client, org, Date.parse(packet.asOf) + 1, at + 999)).events);
    } finally {
      await client.close();
    }
    const people = new Map(access.organizations.flatMap((org) => org.members.map((m) => [m.userId, m] as const)));
    const actor = (userId: number | null | undefined) =>
      userId == null ? "an unnamed actor (the service)" : personText({ ...people.get(userId), userId });
    const results = decisions.map((d) =>
      reconcileDecision(d, {
        held: (x) => heldNow(x, access),
        events: (org) => events.get(org) ?? [],
        keyUserId: access.actingAs?.id,
        actor,
        ...(up ? { up } : {}),
        ...(plan ? { plan } : {}),
      }),
    );
    const count = (outcome: Reconciled["outcome"]) => results.filter((r) => r.outcome === outcome).length;
    const pending = results.filter((r) => r.decision !== "keep" && r.outcome !== "carried out").length;
    const record = {
      format: "pulumi-reviewadmin reconcile 1",
      review: packet.asOf,
      checkedAt: new Date(at).toISOString(),
      signoff: { file: signoffFile, sha256: sha256(signoffText) },
      ...(upFile ? { upLog: { file: upFile, sha256: sha256(upText!), resources: up!.steps.length } } : {}),
      ...(planFile ? { plan: { file: planFile, sha256: sha256(planText!) } } : {}),
      counts: { decisions: results.length, carriedOut: count("carried out"), kept: count("kept"), notCarriedOut: pending },
      decisions: results,
    };
    addToPacket(dir, { [RECONCILE_FILE]: JSON.stringify(record, null, 2) + "\n" });
    if (o.json === true) io.out(JSON.stringify(record, null, 2));
    else
      io.out(
        [
          `Reconciled ${plural(results.length, "decision")} of ${signoffFile} (the review as of ${packet.asOf.slice(0, 10)}) with the service at ${record.checkedAt}` +
            `${upFile ? ` and the up's log ${upFile}` : " (no --up-log: the changes are not named)"}${planFile ? `, the reviewed plan ${planFile} (SHA-256 ${record.plan!.sha256})` : ""}: ` +
            `${record.counts.carriedOut} carried out, ${record.counts.kept} kept, ${pending} not carried out.`,
          ...results.map(lineOf),
          `Written to ${dir}/${RECONCILE_FILE} and added to its manifest.json.`,
        ].join("\n"),
      );
    return pending === 0 ? 0 : 1;
  },
};
