/**
 * The external-access-expires rule (policy/rules/externalExpiry.ts, issue 26) on plain
 * declarations: external grants need an end date within maxDays, per-domain terms, the firm's
 * own people and unknowns pass.
 */
import { describe, expect, it } from "vitest";
import { declaredBy, toPlain, type ResourceInfo } from "../../policy/declarations";
import { externalExpiryFindings } from "../../policy/rules/externalExpiry";
import { res, UNKNOWN_WIRE } from "./fixtures";

const declared = (...rs: ResourceInfo[]) => declaredBy(rs.map((r) => ({ ...r, props: toPlain(r.props) as Record<string, unknown> })));
const NOW = Date.parse("2026-03-01T12:00:00Z");
const CFG = { firmDomains: ["Northwind.example"], userEmails: { "1009": "jane@lawfirm.example", "1003": "alan@northwind.example" } };
const grant = (props: Record<string, unknown> = {}) =>
  res("DatabaseUserPermissions", "jane", { databaseId: 2001, userId: 1009, permissions: ["DB_UPLOAD"], ...props });

describe("external-access-expires", () => {
  it("refuses an external grant without an end date, naming the resource, the person and the latest day", () => {
    expect(externalExpiryFindings(declared(grant()), CFG, NOW).map((f) => f.message)).toEqual([
      `DatabaseUserPermissions "jane" grants user 1009 (jane@lawfirm.example) access to database 2001 without an end date: ` +
        `people outside the firm's domains (northwind.example) get access for at most 90 days. ` +
        `Fix: set expiresOn to a day no later than 2026-05-30, or set terms for lawfirm.example in the policy config's domains.`,
    ]);
  });

  it("refuses an end date too far away; accepts one within maxDays or the domain's own maxDays", () => {
    expect(externalExpiryFindings(declared(grant({ expiresOn: "2026-05-30" })), CFG, NOW)).toEqual([]);
    expect(externalExpiryFindings(declared(grant({ expiresOn: "2026-06-15" })), CFG, NOW).map((f) => f.message)).toEqual([
      expect.stringContaining("until 2026-06-15, more than 90 days from today"),
    ]);
    const terms = { ...CFG, domains: { "lawfirm.example": { maxDays: 10 } } };
    expect(externalExpiryFindings(declared(grant({ expiresOn: "2026-03-20" })), terms, NOW).map((f) => f.message)).toEqual([
      expect.stringContaining("for at most 10 days. Fix: set expiresOn to a day no later than 2026-03-11"),
    ]);
    expect(externalExpiryFindings(declared(grant()), { ...CFG, domains: { "@LawFirm.example": { required: false } } }, NOW)).toEqual([]);
  });

  it("roster entries by their object form; the firm's people, unknown emails and unknown dates pass; off without firmDomains", () => {
    const roster = res("DatabaseUsers", "nvc", {
      databaseId: 2001,
      mode: "additive",
      users: { "1003": ["DB_ADMIN"], "1009": ["DB_UPLOAD"], "1010": ["DB_UPLOAD"] },
    });
    expect(externalExpiryFindings(declared(roster), CFG, NOW).map((f) => f.message)).toEqual([
      expect.stringMatching(/^DatabaseUsers "nvc" grants user 1009 \(jane@lawfirm\.example\) access to database 2001 without an end date/),
    ]);
    const dated = res("DatabaseUsers", "nvc", {
      databaseId: 2001,
      mode: "additive",
      users: { "1009": { permissions: ["DB_UPLOAD"], expiresOn: "2026-04-01" } },
    });
    expect(externalExpiryFindings(declared(dated), CFG, NOW)).toEqual([]);
    // Outputs: the end dates in the expiresOn map.
    const outputs = res("DatabaseUsers", "nvc", {
      databaseId: 2001,
      mode: "additive",
      users: { "1009": { permissions: ["DB_UPLOAD"], active: true, username: "jane" } },
      managedUserIds: [1009],
      expiresOn: { "1009": "2026-04-01" },
    });
    expect(externalExpiryFindings(declared(outputs), CFG, NOW)).toEqual([]);
    expect(externalExpiryFindings(declared(grant({ expiresOn: UNKNOWN_WIRE }), grant({ userId: UNKNOWN_WIRE })), CFG, NOW)).toEqual([]);
    expect(externalExpiryFindings(declared(grant()), {}, NOW)).toEqual([]);
  });
});
