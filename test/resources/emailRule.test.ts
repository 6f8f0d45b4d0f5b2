/**
 * The one email rule (support/inputs.ts readEmail), on plain values: what the Email schema of
 * every resource accepts and stores, and what a roster's map keys are read with. The messages are
 * what `pulumi preview` prints after the field's name.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { Email, readEmail } from "../../provider/resources/support/inputs";

describe("the email rule", () => {
  it("stores an address trimmed and lower-cased", () => {
    expect(readEmail("  Alan@Northwind.Example ")).toEqual({ email: "alan@northwind.example" });
    expect(Email.parse("  Alan@Northwind.Example ")).toBe("alan@northwind.example");
  });

  it("refuses what is not an address, and one longer than RFC 5321 allows, saying which", () => {
    expect(readEmail("not an email")).toEqual({ problem: "must be an email address" });
    expect(readEmail("alan@localhost")).toEqual({ problem: "must be an email address" });
    const long = `${"a".repeat(64)}@${"b".repeat(185)}.example`;
    expect(long.length).toBe(258);
    expect(readEmail(long)).toEqual({ problem: "must be at most 254 characters (the longest email address there can be)" });
    const r = Email.safeParse("not an email");
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message)).toEqual(["must be an email address"]);
  });

  it("accepts exactly what zod's email check accepts, once trimmed and lower-cased", () => {
    const samples = ["a.b+c@d-e.example", "o'neil@firm.co.uk", "x@y.z", ".a@b.example", "a..b@c.example", "a@b_c.example", "ü@b.example"];
    for (const s of samples) expect("email" in readEmail(s)).toBe(z.email().safeParse(s.trim().toLowerCase()).success);
  });
});
