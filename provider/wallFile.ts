/**
 * The wall file: the firm's ethical walls as its wall system exports them (Intapp Walls, iManage
 * Security Policy Manager), one CSV row per person per matter, read into EthicalWall arguments
 * (issue 37). Pure: no request and no file access. The data source getWallsFromFile and the
 * command `pulumi-reviewadmin export --walls FILE` read the file and the live service and both
 * judge it here, so the two never disagree. docs/walls.md documents the layout.
 *
 * Columns (header names compared lower-cased, spaces and dashes as `_`; `WALL_COLUMN_ALIASES`
 * maps other systems' names):
 * - `matter` (required): the matter number; one wall per matter.
 * - `matter_name`: shown in the wall's reason.
 * - `database_id` or `database` (one of them required): the matter's database by id or by its
 *   exact name (case aside); a matter may name several databases on several rows.
 * - `wall_type` (required): `inclusive` (a matter team: everyone else is walled off) or `exclusive`
 *   (the people named are walled off).
 * - `person_email` (required).
 * - `role` (required): `team` (on the matter team), `allowed` (may see it besides the team) or
 *   `walled` (walled off).
 * - `reason`: why the wall stands (the first given for a matter); absent: the matter's name.
 *
 * Nothing in the file is dropped without a word: a row that cannot be read, a column not read, a
 * person the service does not know and a matter whose database it does not know are problems,
 * each with its line.
 */
import { parse } from "csv-parse/sync";
import { normalizeEmail } from "./normalize";

/** The columns read, as named after normalization. */
export type WallColumn = "matter" | "matter_name" | "database_id" | "database" | "wall_type" | "person_email" | "role" | "reason";
const COLUMNS: readonly WallColumn[] = ["matter", "matter_name", "database_id", "database", "wall_type", "person_email", "role", "reason"];

/**
 * Other systems' header names for the columns, after normalization. Exports differ by
 * installation (their report builders pick the columns): a header not here can be renamed in the
 * file to one of the column names above.
 */
export const WALL_COLUMN_ALIASES: Readonly<Record<string, WallColumn>> = {
  matter_number: "matter",
  matter_id: "matter",
  matter_code: "matter",
  client_matter: "matter",
  matter_description: "matter_name",
  workspace_id: "database_id",
  database_name: "database",
  workspace: "database",
  workspace_name: "database",
  policy_type: "wall_type",
  type: "wall_type",
  email: "person_email",
  user_email: "person_email",
  email_address: "person_email",
  side: "role",
  access: "role",
  wall_reason: "reason",
  description: "reason",
};

/** Values of wall_type and role as other systems write them, lower-cased. */
const WALL_TYPES: Readonly<Record<string, WallType>> = {
  inclusive: "inclusive",
  inclusionary: "inclusive",
  inclusion: "inclusive",
  exclusive: "exclusive",
  exclusionary: "exclusive",
  exclusion: "exclusive",
};
const ROLES: Readonly<Record<string, WallRole>> = {
  team: "team",
  insider: "team",
  included: "team",
  allowed: "allowed",
  also_allowed: "allowed",
  walled: "walled",
  excluded: "walled",
  screened: "walled",
};

export type WallType = "inclusive" | "exclusive";
export type WallRole = "team" | "allowed" | "walled";

/** One row read. `line`: the file's line the row starts on (the header is line 1). */
export interface WallFileRow {
  line: number;
  matter: string;
  matterName?: string;
  databaseId?: number;
  database?: string;
  wallType: WallType;
  email: string;
  role: WallRole;
  reason?: string;
}

/** Something in the file that is not a wall as read: the line and what is wrong or unknown. */
export interface WallFileProblem {
  line: number;
  message: string;
}

/** A wall read from the file: the EthicalWall resource name and arguments. */
export interface FileWall {
  /** A resource name: `wall-` and the matter, lower-cased, other characters as `-`. */
  name: string;
  matter: string;
  /** The lines of the matter's rows. */
  lines: number[];
  args: { databaseIds: number[]; people?: string[]; team?: string[]; alsoAllowed?: string[]; reason: string };
}

/** What the service shows of databases and people, to judge the file against. */
export interface WallWorld {
  databases: readonly { id: number; name: string }[];
  /** Emails (lower-cased) of the people the key can see: members of the databases' organizations and database users. */
  people: ReadonlySet<string>;
}

/** A file that cannot be read at all (no header, a required column missing, malformed CSV). */
export class WallFileError extends Error {
  override readonly name = "WallFileError";
}

const normalizeHeader = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Reads the rows of a wall file; throws WallFileError when the file as a whole cannot be read. */
export function parseWallFile(text: string): { rows: WallFileRow[]; problems: WallFileProblem[] } {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { bom: true, trim: true, relax_column_count: true, skip_empty_lines: true, info: true }) as never;
  } catch (err) {
    throw new WallFileError(`not a well-formed CSV (${(err as Error).message})`);
  }
  if (records.length === 0) throw new WallFileError("the file has no header row");
  const problems: WallFileProblem[] = [];
  const index = new Map<WallColumn, number>();
  records[0]!.record.forEach((raw, i) => {
    const h = normalizeHeader(raw);
    const column = (COLUMNS as readonly string[]).includes(h) ? (h as WallColumn) : WALL_COLUMN_ALIASES[h];
    if (column && !index.has(column)) index.set(column, i);
    else if (raw.trim() !== "")
      problems.push({
        line: 1,
        message: `column '${raw}' is not read (${column ? `a second ${column} column` : "not a column of the wall file"})`,
      });
  });
  const missing = (["matter", "wall_type", "person_email", "role"] as const).filter((c) => !index.has(c));
  if (!index.has("database_id") && !index.has("database")) missing.push("database_id or database" as never);
  if (missing.length) throw new WallFileError(`line 1: the header lacks ${missing.join(", ")} (docs/walls.md lists the columns)`);

  const rows: WallFileRow[] = [];
  for (const { record, info } of records.slice(1)) {
    // info.lines is the line a record ends on; rows here are one line each unless a quoted cell spans lines.
    const line = info.lines;
    const cell = (c: WallColumn) => {
      const i = index.get(c);
      const v = i === undefined ? "" : (record[i] ?? "").trim();
      return v === "" ? undefined : v;
    };
    if (record.every((v) => v.trim() === "")) continue;
    const wrong: string[] = [];
    const matter = cell("matter");
    if (!matter) wrong.push("matter is blank");
    const wallType = WALL_TYPES[(cell("wall_type") ?? "").toLowerCase()];
    if (!wallType) wrong.push(`wall_type '${cell("wall_type") ?? ""}' must be inclusive or exclusive`);
    const role = ROLES[(cell("role") ?? "").toLowerCase().replace(/[\s-]+/g, "_")];
    if (!role) wrong.push(`role '${cell("role") ?? ""}' must be team, allowed or walled`);
    const email = normalizeEmail(cell("person_email") ?? "");
    if (!EMAIL.test(email)) wrong.push(`person_email '${cell("person_email") ?? ""}' must be an email address`);
    const idText = cell("database_id");
    const databaseId = idText === undefined ? undefined : Number(idText);
    if (idText !== undefined && !(Number.isInteger(databaseId) && databaseId! > 0))
      wrong.push(`database_id '${idText}' must be a database id`);
    const database = cell("database");
    if (idText === undefined && database === undefined) wrong.push("names no database (database_id or database)");
    if (wrong.length) {
      problems.push({ line, message: `row not read: ${wrong.join("; ")}` });
      continue;
    }
    rows.push({
      line,
      matter: matter!,
      wallType: wallType!,
      email,
      role: role!,
      ...(cell("matter_name") ? { matterName: cell("matter_name") } : {}),
      ...(databaseId !== undefined ? { databaseId } : {}),
      ...(database !== undefined ? { database } : {}),
      ...(cell("reason") ? { reason: cell("reason") } : {}),
    });
  }
  return { rows, problems };
}

/** The matter's database for one row, or the problem that keeps it unknown. */
function databaseOf(row: WallFileRow, world: WallWorld): number | string {
  if (row.databaseId !== undefined) {
    return world.databases.some((d) => d.id === row.databaseId)
      ? row.databaseId
      : `unknown matter ${row.matter}: database ${row.databaseId} is not a database the API key can see`;
  }
  const named = world.databases.filter((d) => d.name.trim().toLowerCase() === row.database!.toLowerCase());
  if (named.length === 1) return named[0]!.id;
  if (named.length > 1)
    return `matter ${row.matter}: several databases are named '${row.database}' (${named.map((d) => d.id).join(", ")}): give database_id`;
  return `unknown matter ${row.matter}: no database the API key can see is named '${row.database}'`;
}

const slug = (matter: string) =>
  `wall-${matter
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")}`;

/**
 * The walls of the file's rows, one per matter, judged against the service: a matter whose
 * database is unknown makes no wall (its lines are problems); a person the service does not know
 * stays in the wall (a wall may name someone who joins later) and is a problem, to check the
 * spelling.
 */
export function wallsFromRows(rows: readonly WallFileRow[], world: WallWorld): { walls: FileWall[]; problems: WallFileProblem[] } {
  const problems: WallFileProblem[] = [];
  const byMatter = new Map<string, WallFileRow[]>();
  for (const r of rows) byMatter.set(r.matter, [...(byMatter.get(r.matter) ?? []), r]);
  const walls: FileWall[] = [];
  for (const [matter, mine] of byMatter) {
    const wallType = mine[0]!.wallType;
    const databaseIds = new Set<number>();
    let known = true;
    const team: string[] = [];
    const allowed: string[] = [];
    const people: string[] = [];
    for (const r of mine) {
      const db = databaseOf(r, world);
      if (typeof db === "string") {
        problems.push({ line: r.line, message: db });
        known = false;
      } else databaseIds.add(db);
      if (r.wallType !== wallType) {
        problems.push({
          line: r.line,
          message: `matter ${matter} is ${wallType} on line ${mine[0]!.line}: this row's ${r.wallType} is not read`,
        });
        continue;
      }
      if (!world.people.has(r.email))
        problems.push({
          line: r.line,
          message: `unknown person ${r.email}: no member or database user the API key can see; kept in the wall, check the spelling`,
        });
      if (wallType === "inclusive" && r.role === "walled")
        problems.push({
          line: r.line,
          message: `role walled on the inclusive matter ${matter}: everyone outside its team is walled off already; not read`,
        });
      else if (wallType === "exclusive" && r.role !== "walled")
        problems.push({
          line: r.line,
          message: `role ${r.role} on the exclusive matter ${matter}: an exclusive wall names only whom it walls off; not read`,
        });
      else (r.role === "team" ? team : r.role === "allowed" ? allowed : people).push(r.email);
    }
    const lines = mine.map((r) => r.line);
    const named = wallType === "inclusive" ? team : people;
    if (named.length === 0) {
      problems.push({
        line: lines[0]!,
        message: `matter ${matter} makes no wall: an ${wallType} wall needs a row with role ${wallType === "inclusive" ? "team" : "walled"}`,
      });
      continue;
    }
    if (!known) continue;
    const matterName = mine.find((r) => r.matterName)?.matterName;
    const reason =
      mine.find((r) => r.reason)?.reason ?? `matter ${matter}${matterName ? ` (${matterName})` : ""}, from the firm's wall system`;
    const uniq = (xs: string[]) => [...new Set(xs)].sort();
    walls.push({
      name: slug(matter),
      matter,
      lines,
      args: {
        databaseIds: [...databaseIds].sort((a, b) => a - b),
        ...(wallType === "inclusive"
          ? { team: uniq(team), ...(allowed.length ? { alsoAllowed: uniq(allowed) } : {}) }
          : { people: uniq(people) }),
        reason,
      },
    });
  }
  return { walls, problems: problems.sort((a, b) => a.line - b.line) };
}

/** Reads a wall file and judges it against the service: the walls, and every problem with its line. */
export function readWallFile(text: string, world: WallWorld): { walls: FileWall[]; problems: WallFileProblem[] } {
  const parsed = parseWallFile(text);
  const judged = wallsFromRows(parsed.rows, world);
  return { walls: judged.walls, problems: [...parsed.problems, ...judged.problems].sort((a, b) => a.line - b.line) };
}
