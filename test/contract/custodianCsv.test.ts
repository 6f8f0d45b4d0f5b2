/** Every rule of the spec's custodian directory CSV, as parseCustodianCsv applies it. */
import { describe, expect, it } from "vitest";
import { CUSTODIAN_COLUMNS, CustodianCsvError, MAX_CSV_BYTES, parseCustodianCsv, renderCustodianCsv } from "../../contract/custodianCsv";

function csvError(text: string, opts?: { maxBytes?: number }): CustodianCsvError {
  try {
    parseCustodianCsv(text, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(CustodianCsvError);
    return err as CustodianCsvError;
  }
  throw new Error("expected a CustodianCsvError");
}

describe("parseCustodianCsv", () => {
  it("matches header names case-insensitively and returns camelCase properties, absent ones null", () => {
    const { people, ignored } = parseCustodianCsv("EMAIL,Business Phone,Department\nann@example.com,555-0100,Legal\n");
    expect(ignored).toEqual([]);
    expect(people).toHaveLength(1);
    expect(people[0]).toMatchObject({ email: "ann@example.com", businessPhone: "555-0100", department: "Legal", notes: null });
    expect(Object.keys(people[0]).sort()).toEqual(Object.values(CUSTODIAN_COLUMNS).sort());
  });

  it("accepts every supported header", () => {
    const headers = Object.keys(CUSTODIAN_COLUMNS);
    const values = headers.map((h) => (h.includes("date") ? "2024-02-29" : h === "email" ? "a@b.c" : `v ${h}`));
    const { people } = parseCustodianCsv(`${headers.join(",")}\n${values.join(",")}\n`);
    expect(people[0].employeeStartDate).toBe("2024-02-29");
    expect(people[0].preferredLanguage).toBe("v preferred language");
  });

  it("drops recognized-but-ignored columns", () => {
    const { people } = parseCustodianCsv("email,employee id,identities,my site,preferred data location\na@b.c,42,x,y,z\n");
    expect(people[0]).not.toHaveProperty("employeeId");
    expect(people[0].email).toBe("a@b.c");
  });

  it("refuses an unknown header, naming it", () => {
    const err = csvError("email,emial\na@b.c,x\n");
    expect(err.row).toBe(1);
    expect(err.column).toBe("emial");
    expect(err.message).toMatch(/row 1.*unknown header 'emial'/);
  });

  it("refuses several unknown headers, naming every one of them", () => {
    const err = csvError("email,emial,deparment,Job Titel\na@b.c,x,y,z\n");
    expect(err.row).toBe(1);
    expect(err.column).toBeUndefined();
    expect(err.message).toMatch(/^custodian CSV row 1: unknown headers 'emial', 'deparment', 'job titel' \(supported: /);
  });

  it("refuses a header named twice", () => {
    expect(csvError("email,Email\na@b.c,x\n").rule).toMatch(/appears twice/);
  });

  it("drops a trailing column with no header name when it is blank, refuses it when it holds a value", () => {
    expect(parseCustodianCsv("email,\na@b.c,\n").people).toHaveLength(1);
    expect(csvError("email,\na@b.c,zzz\n").row).toBe(2);
  });

  it("takes dates only as yyyy-MM-dd and only real calendar dates", () => {
    expect(parseCustodianCsv("email,employee start date\na@b.c,2023-01-31\n").people[0].employeeStartDate).toBe("2023-01-31");
    for (const bad of ["01/31/2023", "2023-1-31", "2023-02-30", "2023-13-01", "2023-01-31T00:00:00Z"]) {
      const err = csvError(`email,employee end date\na@b.c,${bad}\n`);
      expect(err.row).toBe(2);
      expect(err.column).toBe("employee end date");
      expect(err.message).toContain("yyyy-MM-dd");
    }
  });

  it("forms the name from first/middle/last when any is present, else uses 'name'", () => {
    const { people } = parseCustodianCsv(
      "email,name,first name,middle name,last name\n" +
        "a@b.c,Ignored,Ann,,Lee\n" +
        "b@b.c,Bob Roe,,,\n" +
        "c@b.c,Ignored too,,Q,\n" +
        "d@b.c,,Dee,Ann,Day\n",
    );
    expect(people.map((p) => p.name)).toEqual(["Ann Lee", "Bob Roe", "Q", "Dee Ann Day"]);
  });

  it("refuses a person with neither email nor user principal name, naming the row", () => {
    const err = csvError("email,user principal name,name\na@b.c,,A\n,,Nobody\n");
    expect(err.row).toBe(3);
    expect(err.message).toMatch(/row 3: .*'email' or a 'user principal name'/);
  });

  it("ignores and reports a person with a principal name but no email", () => {
    const { people, ignored } = parseCustodianCsv("email,user principal name\na@b.c,a@corp\n  ,upn-only@corp\n");
    expect(people.map((p) => p.email)).toEqual(["a@b.c"]);
    expect(ignored).toEqual(["upn-only@corp"]);
  });

  it("trims whitespace around values (quoted or not) and turns whitespace-only cells into null", () => {
    const { people } = parseCustodianCsv('email,department,notes, role \n  a@b.c , " Legal ",   ,"  "\n');
    expect(people[0]).toMatchObject({ email: "a@b.c", department: "Legal", notes: null, role: null });
  });

  it("keeps commas, quotes and line breaks inside quoted values", () => {
    const { people } = parseCustodianCsv('email,notes\na@b.c,"one, ""two""\nthree"\n');
    expect(people[0].notes).toBe('one, "two"\nthree');
  });

  it("counts rows as records with the header as row 1, across multi-line values", () => {
    const err = csvError('email,notes\na@b.c,"x\ny"\nb@b.c,z\nbad,q\n');
    expect(err.row).toBe(4);
  });

  it("checks the size limit on the byte length", () => {
    expect(MAX_CSV_BYTES).toBe(190_000_000);
    // 6 characters but 12 UTF-8 bytes of header+row over a 10-byte limit.
    const err = csvError("email\né@é.é\n", { maxBytes: 10 });
    expect(err.row).toBe(0);
    expect(err.message).toMatch(/over the maximum of 10 bytes/);
    expect(csvError("x".repeat(MAX_CSV_BYTES + 1)).message).toContain(String(MAX_CSV_BYTES));
  });

  it("refuses two rows with the same email, case-insensitively", () => {
    const err = csvError("email\nAnn@Example.com\nann@example.com\n");
    expect(err.row).toBe(3);
    expect(err.message).toContain("row 2");
  });

  it("refuses a row whose cell count differs from the header's", () => {
    expect(csvError("email,role\na@b.c\n").rule).toMatch(/1 cells but the header has 2/);
    expect(csvError("email,role\na@b.c,x,y\n").row).toBe(2);
  });

  it("skips blank rows and a byte-order mark, and takes CRLF line ends", () => {
    const { people } = parseCustodianCsv("\ufeffemail,role\n\n , \na@b.c,x\n");
    expect(people).toHaveLength(1);
    expect(parseCustodianCsv("email,role\r\na@b.c,x\r\n").people[0].role).toBe("x");
  });

  it("refuses a malformed CSV and a file without a usable header", () => {
    expect(csvError('email\n"a@b.c\n').message).toMatch(/not a well-formed CSV/);
    expect(csvError("").row).toBe(1);
    expect(csvError("role\nx\n").rule).toMatch(/neither 'email' nor 'user principal name'/);
  });

  it("refuses an email that is not an address", () => {
    expect(csvError("email\nnot an email\n").column).toBe("email");
  });
});

describe("renderCustodianCsv", () => {
  it("renders every column in a fixed order, sorted by email, quoting where needed", () => {
    const text = renderCustodianCsv([
      { email: "zed@b.c", firstName: "Zed", notes: 'says "hi", twice\nand more' },
      { email: "Amy@b.c", department: " padded " },
    ]);
    const lines = text.split("\n");
    expect(lines[0]).toBe(Object.keys(CUSTODIAN_COLUMNS).join(","));
    expect(lines[1].startsWith("Amy@b.c,")).toBe(true);
    expect(text).toContain('"says ""hi"", twice\nand more"');
    expect(text.endsWith("\n")).toBe(true);
  });

  it("is deterministic and parses back to the same people", () => {
    const input = [
      { email: "b@b.c", firstName: "Bo", lastName: "Bell", employeeStartDate: "2020-05-01" },
      { email: "a@b.c", name: "Al", notes: "x,y" },
      { userPrincipalName: "upn@corp" },
    ];
    const text = renderCustodianCsv(input);
    expect(renderCustodianCsv([...input].reverse())).toBe(text);
    const { people, ignored } = parseCustodianCsv(text);
    expect(ignored).toEqual(["upn@corp"]);
    expect(people.map((p) => [p.email, p.name, p.notes, p.employeeStartDate])).toEqual([
      ["a@b.c", "Al", "x,y", null],
      ["b@b.c", "Bo Bell", null, "2020-05-01"],
    ]);
  });
});
