/**
 * The CSV sign-off review.html saves (issue 55), on plain values: the page's own writer (the same
 * JavaScript text the page runs) opens in columns the way a spreadsheet in a ',' locale and in a
 * ';' locale reads a .csv, accented names intact; and apply-signoff's reader takes it, with the
 * packet it names. The page saving it, and apply-signoff applying it: test/engine/reviewDecide.test.ts.
 */
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { ATTESTATION } from "../../cli/review/html";
import { SIGNOFF_CSV_HEADER, SIGNOFF_CSV_JS } from "../../cli/review/htmlDecide";
import { parseSignoff } from "../../cli/review/signoff";

const signoffCsv = new Function(`${SIGNOFF_CSV_JS}; return signoffCsv;`)() as (header: string[], rows: string[][]) => string;
const SHA = "ab".repeat(32);
const ROWS = [
  [
    "102",
    "zoe@northwind.example",
    "Zoë Ångström-Nuñez",
    "organization",
    "",
    "ORG_ADMIN",
    "keep",
    "runs the firm; needs it",
    "Åsa Öberg",
    "2026-11-21",
    SHA,
    ATTESTATION,
  ],
  [
    "102",
    "jo@outside.example",
    'Jo "Quotes", Esq.',
    "database 2001",
    "Northwind v. Contoso",
    "DB_UPLOAD",
    "remove",
    "=left the matter",
    "Åsa Öberg",
    "2026-11-21",
    SHA,
    ATTESTATION,
  ],
];

/**
 * A .csv opened as a spreadsheet opens it: UTF-8 when it starts with a byte-order mark (else the
 * machine's code page, here Latin-1), a first line "sep=X" naming the delimiter, else the
 * locale's list separator.
 */
function openAsSpreadsheet(bytes: Buffer, localeSeparator: "," | ";"): string[][] {
  const bom = bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]));
  let text = bom ? bytes.subarray(3).toString("utf8") : bytes.toString("latin1");
  let delimiter: string = localeSeparator;
  const hint = /^sep=(.)\r?\n/.exec(text);
  if (hint) {
    delimiter = hint[1]!;
    text = text.slice(hint[0].length);
  }
  return parse(text, { delimiter, relax_column_count: true }) as string[][];
}

describe("the CSV sign-off review.html saves", () => {
  const bytes = Buffer.from(signoffCsv(SIGNOFF_CSV_HEADER, ROWS), "utf8");

  it.each([",", ";"] as const)("opens in columns, accented names intact, in a '%s' locale", (locale) => {
    const rows = openAsSpreadsheet(bytes, locale);
    expect(rows[0]).toEqual(SIGNOFF_CSV_HEADER);
    for (const r of rows) expect(r).toHaveLength(SIGNOFF_CSV_HEADER.length);
    expect(rows[1]![2]).toBe("Zoë Ångström-Nuñez");
    expect(rows[1]![7]).toBe("runs the firm; needs it");
    expect(rows[2]![2]).toBe('Jo "Quotes", Esq.');
    // A formula is neutralized for the spreadsheet (apply-signoff takes the ' off).
    expect(rows[2]![7]).toBe("'=left the matter");
  });

  it("starts with a UTF-8 byte-order mark and the delimiter hint, CRLF line ends", () => {
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString("utf8").split("\r\n")[0]).toBe("sep=,");
  });

  it("is what apply-signoff reads: its decisions, reviewer and day, and the packet it was made against", () => {
    const read = parseSignoff("signoff.csv", bytes.toString("utf8"));
    expect(read.packetSha256).toBe(SHA);
    expect(read.decisions.map((d) => [d.where, d.email, d.scope, d.decision, d.justification, d.reviewer, d.reviewedOn])).toEqual([
      ["signoff.csv line 3", "zoe@northwind.example", "organization", "keep", "runs the firm; needs it", "Åsa Öberg", "2026-11-21"],
      ["signoff.csv line 4", "jo@outside.example", "database 2001", "remove", "=left the matter", "Åsa Öberg", "2026-11-21"],
    ]);
  });

  it("refuses a sign-off naming two packets", () => {
    const mixed = signoffCsv(SIGNOFF_CSV_HEADER, [ROWS[0]!, [...ROWS[1]!.slice(0, -2), "cd".repeat(32), ATTESTATION]]);
    expect(() => parseSignoff("mixed.csv", mixed)).toThrow(/names more than one packet/);
  });
});
