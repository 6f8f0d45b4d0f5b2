/**
 * `pulumi-reviewadmin review`: the access review packet of the organizations a key administers,
 * read from the live service with the export's reading code (export/read.ts) plus one bounded read
 * of each activity log (review/events.ts), and written as review.md, review.html, review.csv and
 * review.json. The packet is in review/packet.ts, "since the last review" in review/since.ts, the
 * files in review/packetFiles.ts (review/render.ts, review/html.ts); `review apply-signoff` (review/signoff.ts) turns a reviewer's decisions into a
 * change of the exported access.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PRIVILEGES } from "../contract/grants";
import { BUILT_IN_ROUTES } from "../contract/routing";
import { currentClient } from "../provider/settings";
import { plural, positiveInt, timeOption, UsageError, type Command } from "./command";
import { credentialOptions, credentials } from "./credentials";
import { readAccess, type ExportedAccess } from "./export/read";
import { writeProject } from "./export/writeProject";
import { ownPackage } from "./packageInfo";
import { assertMayWritePacket, gitState, keyEvidence, toolBuild } from "./review/evidence";
import { EVENT_PAGE, readLog, type OrganizationLog } from "./review/events";
import { CODE_FLAGS } from "./review/format";
import {
  clearPacket,
  collectReads,
  commandLine,
  serviceSecond,
  endpointsRead,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  manifestText,
  redactedUrl,
  wallReadsOf,
  type WallRead,
} from "./review/manifest";
import { buildPacket, DEFAULT_EXPIRING_DAYS, windowBegin, type PacketOptions } from "./review/packet";
import { DEFAULT_WALL_DAYS, wallPeriodBegin, wallRequestBound, WALLS_CSV } from "./review/packetWalls";
import { readPacket } from "./review/readPacket";
import { renderPacket } from "./review/packetFiles";
import { attentionOf, isTimeZone, withRisksShared, type RenderOptions } from "./review/render";
import { sinceLastReview } from "./review/since";
import { readStack } from "./review/stack";
import { buildWallReport, type WallReport } from "./review/wallReport";

const DEFAULT_OUT = "access-review";
const DEFAULT_STALE_DAYS = 90;
/** The people the summary names per organization, riskiest first. */
const RISKIEST = 5;

/** Firm domains, lower case, without a leading @; a UsageError for one that is not a domain. */
function firmDomains(value: unknown): string[] {
  const out = new Set<string>();
  for (const raw of (value as string[] | undefined) ?? []) {
    const d = raw.trim().toLowerCase().replace(/^@/, "");
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d))
      throw new UsageError(`--firm-domain must be a domain such as northwind.example, got '${raw}'`);
    out.add(d);
  }
  return [...out];
}

/** `--time-zone`: an IANA zone Intl knows (default UTC), or a UsageError naming the option and the rule. */
function timeZoneOption(value: unknown): RenderOptions {
  if (value === undefined) return { timeZone: "UTC" };
  const zone = String(value).trim();
  if (!isTimeZone(zone))
    throw new UsageError(`--time-zone must be an IANA time zone such as Europe/Berlin, America/New_York or UTC, got '${zone}'`);
  // Intl takes any case ("europe/berlin"); the files name the zone as Intl spells it.
  return { timeZone: new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone };
}

/** `--stale-days` values: `N` (the default limit) and `PRIVILEGE=N` (that privilege's), or a UsageError. */
function staleDaysOption(values: unknown): { staleDays: number; staleDaysByPrivilege: Record<string, number> } {
  let staleDays = DEFAULT_STALE_DAYS;
  const staleDaysByPrivilege: Record<string, number> = {};
  for (const raw of (values as string[] | undefined) ?? []) {
    const m = /^\s*(?:([A-Za-z_]+)\s*=\s*)?(\S+)\s*$/.exec(raw);
    const privilege = m?.[1]?.toUpperCase();
    if (!m || (privilege !== undefined && !(PRIVILEGES as readonly string[]).includes(privilege)))
      throw new UsageError(`--stale-days must be N or PRIVILEGE=N with PRIVILEGE one of ${PRIVILEGES.join(", ")}, got '${raw}'`);
    const days = positiveInt("stale-days", m[2])!;
    if (privilege === undefined) staleDays = days;
    else staleDaysByPrivilege[privilege] = days;
  }
  return { staleDays, staleDaysByPrivilege };
}

/** The list bound the export states, plus the review's event pages: what `--json` reports next to the requests sent. */
function requestBound(access: ExportedAccess, logs: Map<number, OrganizationLog>): number {
  let bound = 0;
  for (const o of access.organizations) {
    bound += Math.ceil(Math.max(1, o.members.length) / 200) + 5;
    for (const d of o.databases) bound += Math.ceil(Math.max(1, d.grants.length) / 200);
    bound += o.skippedDatabases.length; // one refused list each
    bound += Math.ceil(Math.max(1, logs.get(o.id)?.events.length ?? 0) / EVENT_PAGE);
  }
  return bound;
}

/** What a review did, as `--json` prints it. */
export interface ReviewSummary {
  out: string;
  asOf: string;
  organizations: {
    id: number;
    name: string;
    people: number;
    flagged: Record<string, number>;
    gained?: number;
    lost?: number;
    changed?: number;
    /** How many need attention, and the riskiest of them (at most RISKIEST), by the packet's severity order (review/severity.ts). */
    attention: number;
    riskiest: { person: string; why: string[] }[];
  }[];
  requests: number;
  /** The export's list bound plus ceil(events / 10,000) per organization, and with a stack the wall report's (packetWalls.ts). */
  requestBound: number;
  writes: 0;
}

/** The review command (see its description). */
export const reviewCommand: Command = {
  name: "review",
  summary: "write an access review packet (Markdown, HTML, CSV, JSON, and its manifest) of the organizations a key administers",
  description: `
Reads the live service (lists only, no write: the export's reading, within its list bound, plus
ceil(events / 10,000) activity-log requests per organization) and writes into --out:
review.md for people (a summary first: per organization, who needs attention and why:
privileged, external, stale, not in code, escalated since the last review, walled, expiring, no
access; permissions in plain words with the API's name beside; actors of changes by name and
email; times in --time-zone, named), review.html, the same for a browser (one self-contained
file that loads nothing: the summary first, then per organization an access matrix, a heat map
of each database's counts opening on its people and a people x databases grid, a filter box, and
everyone's lines, each with its decision: keep, remove or change, per line or per person, bulk
keep of what has no risk found, progress, and, with the reviewer's name and attestation, the
sign-off saved as JSON or CSV for apply-signoff, kept meanwhile in the browser by the packet's
hash; drawn 500 rows at a time, so it stays quick at tens
of thousands of people; review.html#filter=TEXT opens it filtered), review.csv for spreadsheets
and the sign-off (one row per line of access, with empty decision and justification columns for
the reviewer; cells that a spreadsheet would run as a formula start with '), review.json for
tools and the next review,
and manifest.json, the evidence: the tool's version and the commit it was built from, the
API's version, the access repository's commit (and whether it had uncommitted changes), the
key's ID and the user it acts as (never its secret), the service's clock at the read, every
endpoint and page read with the items the API answered against the totals the packet holds
(agreeing, or saying where and why not), the requests, the command line, and the SHA-256 of each
file. \`review verify FOLDER\` checks a packet against its manifest. A packet already in --out is
replaced only with --force, or by --previous naming that folder; a signed one (review
apply-signoff recorded a sign-off in it) never is: write each review into a folder of its own
(access-review/<year-month>/) with the one before as --previous.

Per organization the key administers: everyone with access (organization permissions and
identifiers, each database's permissions, pending and expired invitations), each person's last
activity (the latest event in the organization's activity log whose actor is the person, looked
for in the last --stale-days days before "as of"), and flags: privileged, external (with
--firm-domain), stale (per privilege: --stale-days ORG_ADMIN=30 --stale-days DB_ADMIN=60; a
person's limit is the strictest of theirs), no-access, not-a-member, invitation-expired,
suspended. End dates (expiresOn), ethical walls and what the code declares live in the program,
not in the service: with the stack (--stack NAME, or --stack-state FILE holding the output of
\`pulumi stack export\`) the packet also flags not-in-code, expiring-soon (within
--expiring-days), walled and wall-breach, and names the resources declaring each line of access.
not-in-code is judged per permission: a line the code declares with fewer permissions than are
held (a declared person made ORG_ADMIN in the web app) is flagged, naming the permissions the
code does not declare. The stack's state is what its last up (or refresh) found: judge against
the state an up wrote, since a refresh records web-app changes as if declared.

With the stack the packet also holds the wall compliance report of its EthicalWalls (what
\`review walls\` writes, from the same code): per wall the breaches of the period found in the
activity log (who made them, when), when each was fixed and by whom, what is unenforceable and
why, and the exceptions in force; as a section of review.md, review.json's "walls", and
walls.csv, each in the manifest. The period ends at "as of" and begins at --walls-since, else
just after the previous review's "as of" (--previous), else ${DEFAULT_WALL_DAYS} days before "as of". The
report's reads (each wall's live read, as its refresh makes it) are listed apart in the
manifest's wallReads. Without a stack review.md says in one line that no wall is known.

Deterministic: sorted, and no time but "as of" (--as-of, else the service's clock, its Date
header to the second, read once after the export's reading; events after it are not read) and,
in the manifest, the service's clock at the end of the read, so two reviews of the same world
with the same --as-of and the same options are byte-identical while the service's clock reads
the same second (an emulator whose clock stands still); against a live service the manifest's
serviceClockAtRead tells the runs apart, and the other files stay byte-identical.

With --previous (the folder of an earlier packet) it adds "since the last review": access gained, lost and changed, each with who
made it and when from the activity log (for a parent organization key, whose log hides details:
the time and actor of the latest event of that kind). Then a reviewer fills in review.csv's
decision column (keep, remove or change), or decides in review.html and saves its sign-off, and
\`pulumi-reviewadmin review apply-signoff\` turns it
into a change of the exported access.ts: a removed line gets an end date (expiresOn), which the
next up enforces in every style export writes (see its --help).

Credentials as for export. Progress goes to stderr, the summary to stdout.`,
  options: {
    out: {
      type: "string",
      short: "o",
      value: "DIR",
      help: `folder to write review.md, review.html, review.csv, review.json (with a stack, walls.csv) and manifest.json into (default ${DEFAULT_OUT}); a packet already there is replaced only with --force or --previous naming it, a signed one never`,
    },
    force: { type: "boolean", help: "replace the packet --out holds (never a signed one)" },
    org: {
      type: "string",
      multiple: true,
      value: "ID",
      help: "an organization to review (repeat for more); default: every organization the key administers",
    },
    "firm-domain": {
      type: "string",
      multiple: true,
      value: "DOMAIN",
      help: "an email domain of the firm (repeat for more); others are flagged external",
    },
    "stale-days": {
      type: "string",
      multiple: true,
      value: "N|PRIV=N",
      help: `days without activity that make a person stale (default ${DEFAULT_STALE_DAYS}); PRIVILEGE=N for one privilege (ORG_ADMIN, DB_ADMIN, ...), repeatable`,
    },
    "as-of": {
      type: "string",
      value: "TIME",
      help: "the time the review describes, ISO 8601 or unix ms (default: the service's clock, read once)",
    },
    stack: {
      type: "string",
      value: "NAME",
      help: "the access program's stack, read with `pulumi stack export` here: adds the code flags (not-in-code, expiring-soon, walled, wall-breach)",
    },
    "stack-state": { type: "string", value: "FILE", help: "the output of `pulumi stack export`, instead of --stack" },
    "walls-since": {
      type: "string",
      value: "TIME",
      help: `with a stack: the first instant of the wall report's period (default: just after --previous's "as of", else ${DEFAULT_WALL_DAYS} days before "as of")`,
    },
    "expiring-days": {
      type: "string",
      value: "N",
      help: `with a stack: access ending within N days of "as of" is flagged expiring-soon (default ${DEFAULT_EXPIRING_DAYS})`,
    },
    previous: { type: "string", value: "DIR", help: 'the previous packet\'s folder (or its review.json): adds "since the last review"' },
    "time-zone": {
      type: "string",
      value: "ZONE",
      help: "the IANA time zone review.md and review.html show times in, e.g. Europe/Berlin (default UTC; always named; review.csv and review.json keep UTC)",
    },
    ...credentialOptions,
    quiet: { type: "boolean", short: "q", help: "no progress lines on stderr" },
    json: {
      type: "boolean",
      help: "print the summary as JSON on stdout (per organization: people, flags, changes; requests and their bound)",
    },
  },
  subcommands: {
    "apply-signoff": async () => (await import("./review/applySignoffCommand.js")).applySignoffCommand,
    walls: async () => (await import("./review/wallsCommand.js")).wallsCommand,
    verify: async () => (await import("./review/verifyCommand.js")).verifyCommand,
    "verify-remediation": async () => (await import("./review/remediationCommand.js")).remediationCommand,
    reconcile: async () => (await import("./review/reconcileCommand.js")).reconcileCommand,
  },
  examples: [
    "pulumi-reviewadmin review --out access-review --firm-domain northwind.example",
    "pulumi-reviewadmin review --out access-review/2026-12 --previous access-review/2026-11   # this month's packet, with what changed since",
    "pulumi-reviewadmin review --stack prod --stale-days ORG_ADMIN=30 --expiring-days 30   # judge against the access program's code",
    "pulumi-reviewadmin review --out access-review --time-zone Europe/London   # review.md's times in London time, named",
    "pulumi-reviewadmin review apply-signoff --signoff signoff-2026-12-01.json --packet access-review/2026-12 --access access/access.ts",
    "pulumi-reviewadmin review reconcile --signoff signoff-2026-12-01.json --packet access-review/2026-12 --up-log up-events.json",
    "pulumi-reviewadmin review verify access-review   # the packet's files against its manifest",
  ],

  async run(o, io) {
    const organizations = (o.org as string[] | undefined)?.map((v) => positiveInt("org", v)!);
    const previous = o.previous === undefined ? undefined : readPacket("previous", o.previous as string);
    const givenAsOf = timeOption("as-of", o["as-of"]);
    const wallsSince = timeOption("walls-since", o["walls-since"]);
    const render = timeZoneOption(o["time-zone"]);
    const options: PacketOptions = {
      asOf: givenAsOf ?? 0, // the service's clock, once it has answered (below)
      ...staleDaysOption(o["stale-days"]),
      firmDomains: firmDomains(o["firm-domain"]),
      expiringDays: positiveInt("expiring-days", o["expiring-days"]) ?? DEFAULT_EXPIRING_DAYS,
      stack: readStack({ stack: o.stack as string | undefined, stackState: o["stack-state"] as string | undefined }),
    };
    if (wallsSince !== undefined && !options.stack)
      throw new UsageError(
        "--walls-since needs --stack NAME or --stack-state FILE: the walls are declared in the access program, not in the service",
      );
    const stack = options.stack;
    const checkPrevious = () => {
      if (previous && Date.parse(previous.asOf) >= options.asOf)
        throw new UsageError(
          `--previous must be an earlier review: its "as of" ${previous.asOf} is not before ${new Date(options.asOf).toISOString()}`,
        );
    };
    if (givenAsOf !== undefined) checkPrevious();
    const out = (o.out as string | undefined) ?? DEFAULT_OUT;
    if (fs.existsSync(out) && !fs.statSync(out).isDirectory()) throw new UsageError(`--out must be a folder; ${out} is a file`);
    assertMayWritePacket(out, o.force === true, o.previous as string | undefined);
    const progress = o.quiet ? () => {} : (line: string) => io.err(`review: ${line}`);

    const creds = credentials(o);
    const client = currentClient(creds);
    const sentBefore = client.stats.requests;
    let access: ExportedAccess;
    const logs = new Map<number, OrganizationLog>();
    // Every answer read, for the manifest's pages and counts.
    const reads = collectReads((reader) => client.onRead(reader));
    let wallAnswers: ReturnType<typeof collectReads> | undefined;
    let wallReport: WallReport | undefined;
    let clockAtRead: number;
    try {
      access = await readAccess(
        client,
        { ...(organizations ? { organizations } : {}), grants: true, invitations: true, identifiers: true },
        progress,
      );
      if (givenAsOf === undefined) {
        options.asOf = serviceSecond(client);
        checkPrevious();
      }
      const wallBegin = wallPeriodBegin(options.asOf, {
        ...(wallsSince !== undefined ? { wallsSince } : {}),
        ...(previous ? { previousAsOf: Date.parse(previous.asOf) } : {}),
      });
      if (stack && wallBegin >= options.asOf)
        throw new UsageError(`--walls-since must be before "as of" (${new Date(options.asOf).toISOString()})`);
      // One read per organization covers the activity window, the span since the previous review and the wall report's period.
      const begin = Math.min(windowBegin(options), previous ? Date.parse(previous.asOf) + 1 : Infinity, stack ? wallBegin : Infinity);
      for (const org of access.organizations) {
        const log = await readLog(client, org.id, begin, options.asOf);
        progress(
          `organization ${org.id} (${org.name}): ${plural(log.events.length, "activity-log event")} since ${new Date(begin).toISOString()}`,
        );
        logs.set(org.id, log);
      }
      reads.stop();
      if (stack) {
        // The report's own reads repeat lists the review read: collected apart, so each side's pages stay its own.
        wallAnswers = collectReads((reader) => client.onRead(reader));
        const events = new Map([...logs].map(([id, l]) => [id, l.events]));
        const walls = { source: stack.source, walls: stack.declared.walls ?? [], infos: stack.infos };
        wallReport = await buildWallReport(client, walls, wallBegin, options.asOf, events);
        progress(`wall report: ${plural(wallReport.walls.length, "wall")} from ${new Date(wallBegin).toISOString()}`);
      }
      clockAtRead = serviceSecond(client);
    } finally {
      reads.stop();
      wallAnswers?.stop();
      await client.close();
    }
    const requests = client.stats.requests - sentBefore;

    const packet = buildPacket(access, logs, options);
    if (previous)
      for (const org of packet.organizations) org.since = sinceLastReview(previous, org, logs.get(org.id)!.events, org.eventsRedacted);
    if (wallReport) packet.walls = wallReport;
    const wallReads: WallRead[] | undefined = wallAnswers && wallReadsOf(wallAnswers.answers);
    // The summary's riskiest below, judged with the files' risks (withRisksShared: once per organization).
    const [texts, attention] = withRisksShared(() => [renderPacket(packet, render), packet.organizations.map(attentionOf)] as const);
    // Encoded once, for both the manifest's digests and the files written (134 MiB at 100,000 people).
    const files = Object.fromEntries(Object.entries(texts).map(([name, text]) => [name, Buffer.from(text)]));
    const manifest = manifestText(
      {
        format: MANIFEST_FORMAT,
        tool: { name: ownPackage().name, version: ownPackage().version, ...toolBuild() },
        accessRepository: gitState(process.cwd()),
        key: keyEvidence(creds.apiKey, access.actingAs),
        api: {
          version: BUILT_IN_ROUTES.prefix.replace(/^\//, ""),
          source: `the path prefix of the API's routes (${BUILT_IN_ROUTES.prefix}); the service's answers carry no version of their own`,
        },
        service: redactedUrl(creds.baseUrl),
        asOf: packet.asOf,
        serviceClockAtRead: new Date(clockAtRead).toISOString(),
        commandLine: commandLine(reviewCommand, o),
        requests,
        reads: endpointsRead(reads.answers, packet),
        ...(wallReads ? { wallReads } : {}),
      },
      files,
    );
    clearPacket(out);
    writeProject(out, { ...files, [MANIFEST_FILE]: manifest });

    const summary: ReviewSummary = {
      out: path.normalize(out),
      asOf: packet.asOf,
      organizations: packet.organizations.map((org, i) => ({
        id: org.id,
        name: org.name,
        people: org.people.length,
        flagged: Object.fromEntries(
          ["privileged", "external", "stale", "no-access", ...(options.stack ? CODE_FLAGS : [])].map((f) => [
            f,
            org.people.filter((p) => p.flags.includes(f as never)).length,
          ]),
        ),
        ...(org.since ? { gained: org.since.gained.length, lost: org.since.lost.length, changed: org.since.changed.length } : {}),
        attention: attention[i]!.length,
        riskiest: attention[i]!.slice(0, RISKIEST).map((x) => ({ person: x.person.key, why: x.why })),
      })),
      requests,
      requestBound: requestBound(access, logs) + (wallReport ? wallRequestBound(wallReport, wallReads ?? []) : 0),
      writes: 0,
    };
    if (o.json === true) io.out(JSON.stringify(summary, null, 2));
    else {
      const people = summary.organizations.reduce((n, x) => n + x.people, 0);
      io.out(
        `Reviewed ${plural(summary.organizations.length, "organization")}, ${plural(people, "person", "people")} with access, as of ${packet.asOf}, into ${summary.out} ` +
          `(review.md, review.html, review.csv, review.json${wallReport ? `, ${WALLS_CSV}` : ""}, manifest.json) with ${requests} API requests (bound ${summary.requestBound}), no writes.` +
          summary.organizations
            .filter((x) => x.attention > 0)
            .map(
              (x) =>
                `\nOrganization ${x.id} (${x.name}): ${x.attention} need attention, riskiest first: ` +
                x.riskiest.map((r) => `${r.person} (${r.why[0]})`).join(", ") +
                (x.attention > x.riskiest.length ? ", ..." : "") +
                ".",
            )
            .join(""),
      );
    }
    return 0;
  },
};
