/**
 * `pulumi-reviewadmin state show`: what a stack declares, read from `pulumi stack export` output
 * offline. A roster's large maps are deflated text in the state (contract/packed.ts), which no
 * one can read without this package; this prints them, and the small ones (values already) the
 * same way, so an auditor reads every stack alike.
 *
 * Printed a resource at a time, each from the policy pack's model of what it declares
 * (policy/declarations.ts, the same reading `review --stack` and the pack make), so a stack of
 * 28,007 people is one pass over its resources.
 */
import { unpackProps } from "../../contract/packed";
import { declarationsOf, isNotKnown, kindOf, NOT_KNOWN, type Declaration } from "../../policy/declarations";
import { UsageError, type Command, type Io } from "../command";
import { readStackExport, resourcesOfExport, type ExportedResource } from "../review/stack";

/** Inputs printed elsewhere (the header, the people) or the program's plumbing, not settings. */
const NOT_SETTINGS = new Set([
  "organizationId",
  "databaseId",
  "mode",
  "members",
  "users",
  "email",
  "userId",
  "permissions",
  "expiresOn",
  "declaredElsewhere",
]);

/** One person as the stack declares them. */
export interface ShownPerson {
  email?: string;
  userId?: number;
  /** The permissions the resource sets; null when it does not manage them; "not known" while unknown. */
  permissions: string[] | null | "not known";
  /** The grant's end date (YYYY-MM-DD). */
  expiresOn?: string;
  /** As the last read found them (outputs): "active", "pending", ... */
  status?: string;
  /** The one field a field-level resource owns. */
  field?: string;
}

/** One resource as `state show --json` prints it. */
export interface ShownResource {
  kind: string;
  name: string;
  urn: string;
  /** "organization 102", "database 2001"; absent for resources that declare no access. */
  scope?: string;
  mode?: string;
  /** The inputs the program gave that are neither the scope, the mode nor the people. */
  settings: Record<string, unknown>;
  people: ShownPerson[];
}

/** The state show command (see its description). */
export const stateShowCommand: Command = {
  name: "state show",
  summary: "print what a stack declares from `pulumi stack export` output, offline",
  description: `
Prints what a stack declares, from the output of \`pulumi stack export\` (--stack-state FILE, or
- for standard input) or from the stack itself (--stack NAME runs \`pulumi stack export\` here,
with the Pulumi CLI's own login). For each resource of this package: its kind and name, its
scope (organization or database) and mode, its settings (onUnmanaged, knownExceptions, protected
people, ...: the inputs the program gave besides the people), then each person it declares with
their permissions, end date and, where the last read found it, their status. A roster lists the
people the program declares, not everyone the service has.

A roster's maps and lists are stored deflated in the state when their JSON is longer than 200
characters (any roster of more than one or two people); shorter ones, and settings, as plain JSON
values. Both are printed alike, and so are states written by older versions (maps as JSON text).
No credential, no request to the service. --json prints one JSON document for machines.`,
  options: {
    stack: { type: "string", value: "NAME", help: "the stack, read with `pulumi stack export` here (needs the Pulumi CLI)" },
    "stack-state": { type: "string", value: "FILE", help: "the output of `pulumi stack export`, or - for standard input" },
    json: { type: "boolean", help: "print JSON: {source, resources: [{kind, name, urn, scope, mode, settings, people}]}" },
  },
  examples: [
    "pulumi-reviewadmin state show --stack prod",
    "pulumi stack export --stack prod > state.json && pulumi-reviewadmin state show --stack-state state.json",
    "pulumi stack export | pulumi-reviewadmin state show --stack-state - --json | jq '.resources[].people | length'",
  ],
  run(o, io) {
    const exported = readStackExport({ stack: o.stack as string | undefined, stackState: o["stack-state"] as string | undefined });
    if (!exported) throw new UsageError("give --stack NAME or --stack-state FILE (- for standard input)");
    const resources = resourcesOfExport(exported.json, exported.source);
    if (o.json) printJson(exported.source, resources, io);
    else printText(exported.source, resources, io);
    return Promise.resolve(0);
  },
};

/** What one resource declares, as printed. */
export function shownResource(r: ExportedResource): ShownResource {
  const kind = kindOf(r.type)!;
  const declared = declarationsOf(r);
  const roster = declared.rosters[0];
  const first = declared.declarations[0];
  const scoped = roster ?? first;
  const scope = scoped ? `${scoped.scope} ${isNotKnown(scoped.scopeId) ? "(not known yet)" : scoped.scopeId}` : undefined;
  const mode = roster && !isNotKnown(roster.mode) ? roster.mode : undefined;
  // The people are read from the outputs above: the inputs' own map (deflated when large) is left packed.
  const given = Object.fromEntries(
    Object.entries(r.inputs).filter(
      ([key, value]) => !key.startsWith("__") && !NOT_SETTINGS.has(key) && value !== undefined && value !== null,
    ),
  );
  const inputs = unpackProps(kind, given);
  const settings: Record<string, unknown> = {};
  // By name: the engine keeps inputs in its own order, a program in another. A secret the export
  // left encrypted (no --show-secrets), or a value not known yet, is said so.
  for (const key of Object.keys(inputs).sort()) settings[key] = isNotKnown(inputs[key]) ? "(secret or not known)" : inputs[key];
  return {
    kind,
    name: r.name,
    urn: r.urn,
    ...(scope ? { scope } : {}),
    ...(mode ? { mode } : {}),
    settings,
    people: declared.declarations.map(personOf),
  };
}

function personOf(d: Declaration): ShownPerson {
  const known = <T>(v: T | typeof NOT_KNOWN | undefined): T | undefined => (v === undefined || isNotKnown(v) ? undefined : v);
  const email = known(d.email);
  const userId = known(d.userId);
  const expiresOn = known(d.expiresOn);
  const status = known(d.status);
  let permissions: ShownPerson["permissions"] = null;
  if (isNotKnown(d.permissions) || d.permissions?.partial) permissions = "not known";
  else if (d.permissions) permissions = d.permissions.known;
  return {
    ...(email !== undefined ? { email } : {}),
    ...(userId !== undefined ? { userId } : {}),
    permissions,
    ...(expiresOn !== undefined ? { expiresOn } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(d.field ? { field: d.field } : {}),
  };
}

/** A setting's value on one line: lists comma-separated, objects as JSON. */
function settingText(v: unknown): string {
  if (Array.isArray(v) && v.every((x) => typeof x !== "object" || x === null)) return v.length ? v.join(", ") : "(none)";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** A person's line: who, what, until when. */
function personLine(p: ShownPerson): string {
  const who =
    p.email !== undefined ? (p.userId !== undefined ? `${p.email} (user ${p.userId})` : p.email) : `user ${p.userId ?? "(not known yet)"}`;
  const perms =
    p.permissions === null
      ? "permissions not managed"
      : p.permissions === "not known"
        ? "permissions not known yet"
        : p.permissions.join(", ") || "no permissions";
  const parts = [who, perms];
  if (p.field === "userIdentifiers") parts[1] = "user identifiers";
  if (p.expiresOn) parts.push(`until ${p.expiresOn}`);
  if (p.status) parts.push(p.status);
  return `    ${parts.join("  ")}`;
}

function printText(source: string, resources: ExportedResource[], io: Io): void {
  io.out(`What ${source} declares (${resources.length} resource${resources.length === 1 ? "" : "s"} of pulumi-reviewadmin)`);
  let people = 0;
  for (const r of resources) {
    const shown = shownResource(r);
    people += shown.people.length;
    const lines = ["", `${shown.kind} "${shown.name}"${shown.scope ? `  ${shown.scope}` : ""}${shown.mode ? `  ${shown.mode}` : ""}`];
    for (const [key, value] of Object.entries(shown.settings)) lines.push(`  ${key}: ${settingText(value)}`);
    if (shown.people.length || shown.scope) {
      lines.push(`  people (${shown.people.length}):`);
      for (const p of shown.people) lines.push(personLine(p));
    }
    // One write per resource: a 28,007-person roster is one chunk, not 28,007 writes.
    io.out(lines.join("\n"));
  }
  io.out(`\n${people} ${people === 1 ? "person" : "people"} declared by ${resources.length} resource${resources.length === 1 ? "" : "s"}.`);
}

function printJson(source: string, resources: ExportedResource[], io: Io): void {
  // Streamed a resource at a time: one document, never held whole.
  io.out(`{"source":${JSON.stringify(source)},"resources":[`);
  resources.forEach((r, i) => io.out(JSON.stringify(shownResource(r)) + (i < resources.length - 1 ? "," : "")));
  io.out("]}");
}
