/**
 * How the demo and `npm run example` print a run: one line per resource with what changed
 * underneath, the counts, and the stack outputs.
 */
import type { StepOp } from "../harness/engineSteps";
import { unpackProps } from "../contract/packed";
import { fieldChanges, outputsAround, type Step } from "../harness/runResult";
import type { Props } from "../harness/wire";
import type { ShownRun } from "./exampleStack";

/** The word printed for each step. */
export const LABELS: Record<StepOp, string> = {
  create: "created",
  update: "updated",
  replace: "replaced",
  same: "same",
  delete: "deleted",
  read: "read",
  import: "imported",
  "refresh-changed": "drifted",
  "refresh-gone": "gone",
  "refresh-same": "same",
};

/** `pulumi-nodejs:dynamic/reviewadmin:OrganizationMembers` -> `OrganizationMembers`. */
const shortType = (type: string) => type.slice(type.lastIndexOf(":") + 1);

/** A short description of a resource from its outputs, for "created" lines. */
function summary(step: Step, outputs: Props | undefined): string {
  // The outputs of the kinds shown here, as the provider writes them (only what is printed).
  const o = (outputs ?? {}) as {
    members?: Record<string, unknown>;
    unmanaged?: unknown[];
    organizationId?: number;
    databaseId?: number;
    directoryId?: number;
    userId?: number;
    username?: string;
    email?: string;
    mode?: string;
    status?: string;
    permissions?: unknown;
    adopted?: boolean;
    peopleCount?: number;
  };
  const perms = (p: unknown) => (Array.isArray(p) && p.length > 0 ? p.join(", ") : "no permissions");
  switch (shortType(step.type)) {
    case "OrganizationMembers":
      return `${Object.keys(o.members ?? {}).length} people managed in organization ${o.organizationId} (${o.mode}); ${(o.unmanaged ?? []).length} others there, not managed`;
    case "DatabaseUserPermissions":
      return `${o.username ?? `user ${o.userId}`} on database ${o.databaseId}: ${perms(o.permissions)}${o.adopted ? " (already held: adopted)" : ""}`;
    case "Invitation":
      return `${o.email} to organization ${o.organizationId}: ${o.status}, ${perms(o.permissions)}${o.adopted ? " (already there: adopted)" : ""}`;
    case "CustodianDirectorySync":
      return `${o.peopleCount} people synced into directory ${o.directoryId}`;
    default:
      return "";
  }
}

/** The step list of a run: one line per resource, with what changed underneath. */
export function stepLines(run: ShownRun): string[] {
  const lines: string[] = [];
  const { steps } = run.result;
  for (const s of steps) {
    lines.push(`  ${LABELS[s.op].padEnd(8)} ${shortType(s.type).padEnd(24)} ${s.name}`);
    const around = outputsAround(s, run.before, run.after);
    // A roster's maps are JSON text in the state (contract/packed.ts): shown as the maps they hold.
    const kind = shortType(s.type);
    const [before, after] = [unpackProps(kind, around.before), unpackProps(kind, around.after)];
    const details =
      s.op === "create"
        ? [summary(s, after)]
        : s.op === "refresh-gone"
          ? ["no longer exists in the platform: removed outside the program"]
          : s.op === "update" || s.op === "replace" || s.op === "refresh-changed"
            ? fieldChanges(before, after)
            : [];
    for (const d of details.filter(Boolean)) lines.push(`             ${d}`);
  }
  const counts = new Map<string, number>();
  for (const s of steps) counts.set(LABELS[s.op], (counts.get(LABELS[s.op]) ?? 0) + 1);
  lines.push(`  ${steps.length === 0 ? "no resources" : [...counts].map(([label, n]) => `${n} ${label}`).join(", ")}`);
  return lines;
}

/** Stack outputs, one entry per line. */
export function outputLines(outputs: Record<string, unknown>): string[] {
  const flat = (v: unknown): string =>
    Array.isArray(v)
      ? v.length > 0
        ? v.map(flat).join(", ")
        : "(none)"
      : v !== null && typeof v === "object"
        ? Object.entries(v)
            .map(([k, x]) => `${k} ${flat(x)}`)
            .join(", ")
        : String(v);
  const lines: string[] = [];
  for (const [name, value] of Object.entries(outputs)) {
    lines.push(`    ${name}:`);
    const items = Array.isArray(value)
      ? value
      : value !== null && typeof value === "object"
        ? Object.entries(value).map(([k, v]) => `${k}: ${flat(v)}`)
        : [value];
    if (items.length === 0) lines.push("      (none)");
    for (const item of items) lines.push(`      ${typeof item === "string" ? item : flat(item)}`);
  }
  return lines;
}
