/**
 * The packet's evidence manifest, manifest.json: how the packet was produced (the tool's and the
 * API's versions, the service's clock at the read, the command line), every endpoint and page the
 * review read with the items the API answered against the totals the packet holds (agreeing, or
 * saying where and why not), the request count, and the SHA-256 of each file of the packet, so
 * that `review verify` can tell an altered, missing or added file. No time of this machine goes
 * in: two reviews of the same world at the same "as of" write the same manifest.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { serviceNow } from "../../provider/access/clock";
import type { AnswerRead, ReviewAdminClient } from "../../provider/client";
import { writeProject } from "../export/writeProject";
import { compareText } from "../../provider/util";
import { UsageError, type Command } from "../command";
import type { ReviewOrganization, ReviewPacket } from "./format";

/** The manifest's file name in the packet's folder. */
export const MANIFEST_FILE = "manifest.json";
/** The version of manifest.json. */
export const MANIFEST_FORMAT = "pulumi-reviewadmin manifest 1";

/** Items the API answered that the packet does not hold as such, and why. */
export interface Explained {
  count: number;
  why: string;
}

/** One endpoint the review read: its pages, the items the API answered, and what the packet holds of them. */
export interface EndpointRead {
  operation: string;
  /** The path without the paging parameters (after, limit). */
  endpoint: string;
  /** Items per page, in the order read (a single answer that is not a list counts 1). */
  pages: number[];
  /** The items the API answered over all pages. */
  reported: number;
  /** What the packet holds of them, counted from the packet (null: the answer is not part of the population). */
  packet: { count: number; of: string } | null;
  /** Items reported and not held, each kind with its reason. */
  explained: Explained[];
  /** reported = packet count + explained; false says the packet and the API disagree here. */
  agrees: boolean;
}

/** One endpoint the wall report read: its pages and the items the API answered. */
export interface WallRead {
  operation: string;
  endpoint: string;
  pages: number[];
  reported: number;
}

/** One sign-off applied to the packet, as its manifest records it. */
export interface SignoffRecord {
  /** The copy of the sign-off in the packet's folder (listed in the manifest's files). */
  file: string;
  sha256: string;
  /** Who signed off: the sign-off's reviewer, else its rows' reviewers, else --reviewer; null when none said. */
  reviewer: string | null;
  /** The sentence the reviewer attested in review.html; null when the sign-off carries none (a filled-in review.csv). */
  attestation: string | null;
  /** The sign-off day apply-signoff used (removed lines' expiresOn). */
  on: string;
  /** When review.html saved it, by the reviewer's clock, where the sign-off says. */
  signedAt?: string;
  decisions: { keep: number; remove: number; change: number; undecided: number };
}

/** manifest.json. */
export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  /**
   * The tool, its version, and the commit it was built from with whether that tree had changes not
   * committed (evidence.ts `toolBuild`: stamped at build, or the source checkout), else why not known.
   */
  tool: { name: string; version: string; commit?: string; dirty?: boolean; why?: string; from?: string };
  /** The git repository the review ran in (the access program's, as a GitOps job runs it): its commit and state, or why none. */
  accessRepository?: { commit?: string; dirty?: boolean; why?: string };
  /** The API key: its ID (the part the admin UI shows; never the secret) and the user it acts as. */
  key?: { id: string | null; actsAs: string | null };
  /** The API's version as the service reports it, and where it comes from. */
  api: { version: string; source: string };
  /** The base URL read, without credentials or query. */
  service: string;
  asOf: string;
  /** The service's clock (its Date header, whole seconds) at the end of the read. */
  serviceClockAtRead: string;
  /** The command line, options in --help order, with nothing secret in it (the key never is). */
  commandLine: string;
  /** Requests sent, retries included. */
  requests: number;
  /** Every endpoint read for the population, sorted by endpoint. */
  reads: EndpointRead[];
  /**
   * With a stack: the endpoints the wall compliance report read besides (each wall's live read, as
   * its refresh makes it; the activity log is the population's), sorted by endpoint. Its findings
   * are judged from them, so they are not counted against the packet's lines.
   */
  wallReads?: WallRead[];
  /** True when every read agrees with the packet. */
  agrees: boolean;
  /** The sign-offs `review apply-signoff` applied to this packet (signed.ts); absent until one is. */
  signoffs?: SignoffRecord[];
  /** SHA-256 (hex) of each file of the packet, by name. */
  files: Record<string, string>;
}

/**
 * The service's clock to the whole second: its Date header's resolution. The milliseconds past it
 * would be this machine's time since the answer, which two runs of the same review do not share.
 */
export function serviceSecond(client: ReviewAdminClient): number {
  return Math.floor(serviceNow(client) / 1000) * 1000;
}

/**
 * Adds (or replaces) files of the packet in `dir` and their digests in its manifest, with
 * `fields` set on the manifest: what a later step adds to the evidence.
 */
export function addToPacket(dir: string, files: Record<string, string>, fields: Partial<Pick<Manifest, "signoffs">> = {}): void {
  const manifest = { ...readManifest(dir, "--packet"), ...fields };
  for (const [name, text] of Object.entries(files)) manifest.files[name] = sha256(text);
  manifest.files = Object.fromEntries(
    Object.keys(manifest.files)
      .sort(compareText)
      .map((n) => [n, manifest.files[n]!]),
  );
  writeProject(dir, { ...files, [MANIFEST_FILE]: JSON.stringify(manifest, null, 2) + "\n" });
}

/** SHA-256 in hex of a file's bytes. */
export function sha256(bytes: string | Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The base URL as the manifest names it: no user, password, query or fragment. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(not a URL)";
  }
}

/** The answers of one read, collected while it runs (client.onRead); `stop` ends the collection. */
export function collectReads(onRead: (reader: (a: AnswerRead) => void) => () => void): { answers: AnswerRead[]; stop: () => void } {
  const answers: AnswerRead[] = [];
  return { answers, stop: onRead((a) => answers.push(a)) };
}

/** The endpoint of a path: its query without the paging parameters, which change page by page. */
function endpointOf(p: string): string {
  const [base, query = ""] = p.split("?");
  const kept = new URLSearchParams(query);
  kept.delete("after");
  kept.delete("limit");
  const rest = kept.toString();
  return rest ? `${base}?${rest}` : base!;
}

/** The items of an answer: a list's elements, an invitation list's invitations, else the one object. */
function itemsOf(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  const invitations = (data as { invitations?: unknown } | null)?.invitations;
  return Array.isArray(invitations) ? invitations : [data];
}

const idIn = (p: string, after: string) => Number(new RegExp(`/${after}/(\\d+)`).exec(p)?.[1]);

/** One organization's lines counted once, by status and by scope, and the people holding a member line. */
interface HeldLines {
  byStatus: Map<string, number>;
  byScope: Map<string, number>;
  members: Set<string>;
}

/**
 * What the packet holds, counted in one pass: each endpoint's count is then a lookup, where
 * counting every person's lines per database read was a pass over the organization per database
 * (1,000 databases over 100,000 people, issue 57).
 */
class PacketIndex {
  private readonly held = new Map<ReviewOrganization, HeldLines>();
  private readonly owners = new Map<number, ReviewOrganization>();
  constructor(readonly packet: ReviewPacket) {
    // The first organization listing a database reviews it (as a find over the organizations would).
    for (const o of [...packet.organizations].reverse()) for (const d of o.databases) this.owners.set(d.id, o);
  }
  org(id: number): ReviewOrganization | undefined {
    return this.packet.organizations.find((o) => o.id === id);
  }
  ownerOf(databaseId: number): ReviewOrganization | undefined {
    return this.owners.get(databaseId);
  }
  linesOf(o: ReviewOrganization | undefined): HeldLines {
    if (!o) return { byStatus: new Map(), byScope: new Map(), members: new Set() };
    let h = this.held.get(o);
    if (h) return h;
    h = { byStatus: new Map(), byScope: new Map(), members: new Set() };
    for (const p of o.people)
      for (const l of p.lines) {
        h.byStatus.set(l.status, (h.byStatus.get(l.status) ?? 0) + 1);
        h.byScope.set(l.scope, (h.byScope.get(l.scope) ?? 0) + 1);
        if (l.status === "member") h.members.add(p.key);
      }
    this.held.set(o, h);
    return h;
  }
}

/** What the packet holds of one endpoint's items, and the items it does not hold with the reason. */
function reconcile(
  operation: string,
  endpoint: string,
  items: unknown[],
  index: PacketIndex,
): { packet: EndpointRead["packet"]; explained: Explained[] } {
  const org = (id: number) => index.org(id);
  const status = (o: ReviewOrganization | undefined, s: string) => index.linesOf(o).byStatus.get(s) ?? 0;
  const some = (count: number, why: string): Explained[] => (count > 0 ? [{ count, why }] : []);
  const orgId = idIn(endpoint, "organizations");
  switch (operation) {
    case "GetOrganizationUsers":
      return { packet: { count: status(org(orgId), "member"), of: "member lines" }, explained: [] };
    case "GetOrganizationInvitations": {
      const o = org(orgId);
      const members = index.linesOf(o).members;
      const ofMembers = items.filter((i) => members.has(String((i as { email?: string }).email).toLowerCase())).length;
      return {
        packet: { count: status(o, "invited") + status(o, "invitation-expired"), of: "invitation lines" },
        explained: some(ofMembers, "invitations of people who are members: their member line stands for them"),
      };
    }
    case "GetOrganizationDatabases": {
      const o = org(orgId);
      const shared = items.filter((d) => (d as { owningOrganizationId?: number }).owningOrganizationId !== orgId).length;
      return {
        packet: {
          count: (o?.databases.length ?? 0) + (o?.databasesNotReadable.length ?? 0),
          of: "databases reviewed or named not readable",
        },
        explained: some(shared, "databases owned by another organization: reviewed with that organization"),
      };
    }
    case "GetDatabaseUsers": {
      const dbId = idIn(endpoint, "databases");
      const o = index.ownerOf(dbId);
      const none = items.filter((u) => ((u as { permissions?: unknown[] }).permissions ?? []).length === 0).length;
      return {
        packet: { count: index.linesOf(o).byScope.get(`database ${dbId}`) ?? 0, of: "database lines" },
        explained: some(none, "users listed with no permission: they hold no access on it"),
      };
    }
    case "GetOrganizationEvents": {
      const q = new URLSearchParams(endpoint.split("?")[1] ?? "");
      const begin = Number(q.get("begin"));
      const end = Number(q.get("end"));
      const kept = new Set(
        items
          .filter((e) => (e as { timestamp: number }).timestamp >= begin && (e as { timestamp: number }).timestamp < end)
          .map((e) => (e as { id: number }).id),
      );
      return {
        packet: { count: org(orgId)?.eventsRead ?? 0, of: "events read (eventsRead)" },
        explained: some(items.length - kept.size, "events outside the window asked for, or answered twice"),
      };
    }
    default:
      // The key's own account (GET /v1/users/me), the organizations it can see: how the population was chosen, not part of it.
      return { packet: null, explained: [] };
  }
}

/** The answers grouped by endpoint (pages in the order read), sorted by endpoint. */
function grouped(answers: readonly AnswerRead[]): { operation: string; endpoint: string; pages: unknown[][] }[] {
  const groups = new Map<string, { operation: string; endpoint: string; pages: unknown[][] }>();
  for (const a of answers) {
    const endpoint = endpointOf(a.path);
    const g = groups.get(endpoint) ?? { operation: a.operationId, endpoint, pages: [] };
    g.pages.push(itemsOf(a.data));
    groups.set(endpoint, g);
  }
  return [...groups.values()].sort((a, b) => compareText(a.endpoint, b.endpoint));
}

/** The reads of the wall report, grouped by endpoint: what it judged from, listed apart from the population's reads. */
export function wallReadsOf(answers: readonly AnswerRead[]): WallRead[] {
  return grouped(answers).map((g) => ({
    operation: g.operation,
    endpoint: g.endpoint,
    pages: g.pages.map((p) => p.length),
    reported: g.pages.flat().length,
  }));
}

/** The endpoints read, grouped from the answers (pages in the order read) and set against the packet. */
export function endpointsRead(answers: readonly AnswerRead[], packet: ReviewPacket): EndpointRead[] {
  const index = new PacketIndex(packet);
  return grouped(answers).map((g) => {
    const items = g.pages.flat();
    const r = reconcile(g.operation, g.endpoint, items, index);
    const accounted = (r.packet?.count ?? items.length) + r.explained.reduce((n, e) => n + e.count, 0);
    return {
      operation: g.operation,
      endpoint: g.endpoint,
      pages: g.pages.map((p) => p.length),
      reported: items.length,
      packet: r.packet,
      explained: r.explained,
      agrees: accounted === items.length,
    };
  });
}

/** The manifest's JSON text (files hashed as given, names sorted). */
export function manifestText(m: Omit<Manifest, "files" | "agrees">, files: Record<string, string | Buffer>): string {
  const manifest: Manifest = {
    ...m,
    agrees: m.reads.every((r) => r.agrees),
    files: Object.fromEntries(
      Object.keys(files)
        .sort(compareText)
        .map((name) => [name, sha256(files[name]!)]),
    ),
  };
  return JSON.stringify(manifest, null, 2) + "\n";
}

/** What `review verify` found: files altered, missing, or in the folder and not in the manifest. */
export interface Verification {
  manifest: Manifest;
  ok: string[];
  altered: string[];
  missing: string[];
  unlisted: string[];
}

/** Reads the manifest of the packet in `dir` (named by the argument or option `what`), or a UsageError saying what is wrong. */
export function readManifest(dir: string, what = "FOLDER"): Manifest {
  const file = path.join(dir, MANIFEST_FILE);
  let m: Manifest;
  try {
    m = JSON.parse(fs.readFileSync(file, "utf8")) as Manifest;
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new UsageError(`${what} must hold the manifest.json a review wrote: cannot read ${file}: ${why}`);
  }
  if (m?.format !== MANIFEST_FORMAT || typeof m.files !== "object" || m.files === null)
    throw new UsageError(`${what} must hold the manifest.json a review wrote: ${file} is not one ("format": "${MANIFEST_FORMAT}")`);
  return m;
}

/**
 * Removes the files of the packet written into `dir` before, as its manifest.json lists them (the
 * optional ones a new packet may not have: walls.csv, remediation.json), so the folder holds one
 * packet and `review verify` finds no file of the old one "not listed". A folder without a
 * manifest (or with another file of that name) is left as it is.
 */
export function clearPacket(dir: string): void {
  let listed: unknown;
  try {
    listed = (JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), "utf8")) as Manifest).files;
  } catch {
    return;
  }
  if (typeof listed !== "object" || listed === null) return;
  // Plain names only: a manifest never lists a path, and an edited one must not reach outside the folder.
  for (const name of Object.keys(listed))
    if (path.basename(name) === name && name !== "..") fs.rmSync(path.join(dir, name), { force: true });
}

/** Checks the files of the packet in `dir` against its manifest. */
export function verifyPacket(dir: string): Verification {
  const manifest = readManifest(dir);
  const v: Verification = { manifest, ok: [], altered: [], missing: [], unlisted: [] };
  for (const [name, digest] of Object.entries(manifest.files)) {
    const file = path.join(dir, name);
    if (!fs.existsSync(file)) v.missing.push(name);
    else if (sha256(fs.readFileSync(file)) !== digest) v.altered.push(name);
    else v.ok.push(name);
  }
  for (const name of fs.readdirSync(dir).sort(compareText)) if (name !== MANIFEST_FILE && !(name in manifest.files)) v.unlisted.push(name);
  return v;
}

/** A word of a command line as a POSIX shell reads it back: quoted when it holds anything but plain characters. */
const shellWord = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/**
 * The command line of a run, rebuilt from its parsed options in --help order (so the same
 * options give the same line), with the base URL stripped of any credentials or query. The API
 * key is never on it: the commands take it from an environment variable or a file only. --force,
 * which says only how the packet replaced an older one, is left out.
 */
export function commandLine(cmd: Command, values: Record<string, unknown>): string {
  const words = ["pulumi-reviewadmin", ...cmd.name.split(" ")];
  for (const [name, spec] of Object.entries(cmd.options)) {
    const v = values[name];
    // --force says how the packet was written over an older one, not what was reviewed.
    if (v === undefined || v === false || name === "force") continue;
    if (spec.type === "boolean") words.push(`--${name}`);
    else for (const x of Array.isArray(v) ? v : [v]) words.push(`--${name}`, name === "base-url" ? redactedUrl(String(x)) : String(x));
  }
  if (typeof values.positional === "string") words.push(values.positional);
  return words.map(shellWord).join(" ");
}
