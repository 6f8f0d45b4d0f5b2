/**
 * Mapping exports to the custodian CSV, without the plugin: each preset on a real-shaped header
 * row, `columns` over and beside a preset, dates, the rows that are not synced, duplicates, and
 * the plan-time verdict (fail above half the rows without an email, warn below).
 */
import { describe, expect, it } from "vitest";
import { CustodianCsvError, parseCustodianCsv } from "../../contract";
import { mapCustodianExport, toIsoDate, type ExportMapping } from "../../provider/custodians/mapping";
import { CUSTODIAN_PRESETS, presetOfHeaders } from "../../provider/custodians/presets";
import { IGNORED_ROWS_LIMIT, judgeCustodianFile } from "../../provider/custodians/ignoredRows";
import {
  csvFile,
  ENTRA_DOCUMENTED_HEADER,
  ENTRA_EXPORT,
  ENTRA_HEADER,
  GOOGLE_EXPORT,
  GOOGLE_HEADER,
  M365_EXPORT,
  M365_HEADER,
  OKTA_EXPORT,
  OKTA_HEADER,
  WORKDAY_EXPORT,
  WORKDAY_HEADER,
} from "../support/custodianExports";

/** The people the service would store from the mapped CSV, by email. */
function synced(text: string, mapping: ExportMapping) {
  const mapped = mapCustodianExport(text, mapping);
  const { people, ignored } = parseCustodianCsv(mapped.csv);
  return { ...mapped, byEmail: new Map(people.map((p) => [p.email, p])), ignored };
}

function mappingError(text: string, mapping: ExportMapping): CustodianCsvError {
  try {
    mapCustodianExport(text, mapping);
  } catch (err) {
    expect(err).toBeInstanceOf(CustodianCsvError);
    return err as CustodianCsvError;
  }
  throw new Error("expected a CustodianCsvError");
}

const judge = (text: string, mapping: ExportMapping, allowIgnoredRows?: boolean) =>
  judgeCustodianFile(mapCustodianExport(text, mapping).report, {
    input: "csvPath",
    label: "CustodianDirectorySync of directory 5001",
    preset: mapping.preset,
    mapped: true,
    allowIgnoredRows,
  });

describe("presets on real-shaped exports", () => {
  it("entra-id: mail is the email, the guest without mail is sent by principal name and ignored", () => {
    const r = synced(ENTRA_EXPORT, { preset: "entra-id" });
    expect([...r.byEmail.keys()]).toEqual(["Ada.Lovelace@northwind.example", "alan.turing@northwind.example", "carol@northwind.example"]);
    expect(r.byEmail.get("Ada.Lovelace@northwind.example")).toMatchObject({
      userPrincipalName: "ada@northwind.example",
      firstName: "Ada",
      lastName: "Lovelace",
      name: "Ada Lovelace",
      role: "Litigation Support Manager",
      department: "Legal",
      officeLocation: "Legal 4th floor",
      businessPhone: "+44 20 7946 0001",
      mobilePhone: "+44 7700 900001",
      companyName: "Northwind Legal",
    });
    // The quoted "Custodian, Carol" display name is one cell; first and last name make the name (the service's name rule).
    expect(r.byEmail.get("carol@northwind.example")).toMatchObject({ name: "Carol Custodian", role: "Records Clerk" });
    expect(r.ignored).toEqual(["guest_contoso.example#EXT#@northwind.onmicrosoft.com"]);
    expect(r.report).toMatchObject({ rows: 4, withEmail: 3, leftOut: [], duplicates: [] });
    expect(r.report.principalOnly).toEqual([
      { row: 4, who: "Guest Auditor", userPrincipalName: "guest_contoso.example#EXT#@northwind.onmicrosoft.com" },
    ]);
    expect(r.report.used.map((u) => `${u.property}<-${u.headers.join("|")}`)).toEqual([
      "email<-mail",
      "businessPhone<-telephoneNumber",
      "companyName<-companyName",
      "userPrincipalName<-userPrincipalName",
      "mobilePhone<-mobilePhone",
      "role<-jobTitle",
      "department<-department",
      "officeLocation<-officeLocation",
      "name<-displayName",
      "firstName<-givenName",
      "lastName<-surname",
    ]);
    expect(r.report.unmapped).toEqual([
      "id",
      "userType",
      "accountEnabled",
      "usageLocation",
      "streetAddress",
      "state",
      "country",
      "city",
      "postalCode",
      "alternateEmailAddress",
      "ageGroup",
      "consentProvidedForMinor",
      "legalAgeGroupClassification",
      "creationType",
      "directorySynced",
      "invitationState",
      "identityIssuer",
      "createdDateTime",
    ]);
    expect(r.report.absent.map((a) => a.property)).toEqual(["faxNumber", "preferredLanguage"]);
  });

  it("entra-id reads the documented (older) layout too: physicalDeliveryOfficeName, mobile, objectId", () => {
    const text = csvFile([
      ENTRA_DOCUMENTED_HEADER,
      "ada@northwind.example,Ada Lovelace,Lovelace,ada@northwind.example,Ada,1,Member,Manager,Legal,True,GB,,,,Legal 4th floor,London,,+44 20 1,+44 77 1,,,,,,,",
    ]);
    const r = synced(text, { preset: "entra-id" });
    expect(r.byEmail.get("ada@northwind.example")).toMatchObject({
      officeLocation: "Legal 4th floor",
      mobilePhone: "+44 77 1",
      businessPhone: "+44 20 1",
    });
  });

  it("entra-id on a Microsoft 365 'Export users' file: every row is principal-name only, and the check says so loudly", () => {
    const r = synced(M365_EXPORT, { preset: "entra-id" });
    expect(r.report).toMatchObject({ rows: 3, withEmail: 0 });
    expect(r.ignored).toEqual(["ada@northwind.example", "alan@northwind.example", "carol@northwind.example"]);
    expect(r.report.used.find((u) => u.property === "officeLocation")?.headers).toEqual(["Office"]);
    const verdict = judge(M365_EXPORT, { preset: "entra-id" });
    expect(verdict.failure).toBe(
      "3 of 3 rows (100%) have no email and would not be synced (row 2 (Ada Lovelace), row 3 (Alan Turing), row 4 (Carol Custodian)): " +
        "a mis-mapped export is the likely cause. Columns whose values look like email addresses: 'User principal name' (100% of rows); " +
        'map one with columns: { email: "User principal name" }. To sync the 0 rows that have one anyway, set allowIgnoredRows: true.',
    );
    // The fix it names works: the principal names are the addresses here.
    const fixed = synced(M365_EXPORT, { preset: "entra-id", columns: { email: "User principal name" } });
    expect(fixed.byEmail.get("alan@northwind.example")).toMatchObject({
      userPrincipalName: "alan@northwind.example",
      role: "Reviewer",
      preferredLanguage: "en-GB",
      officeLocation: "Legal 2nd floor",
    });
    expect(judge(M365_EXPORT, { preset: "entra-id", columns: { email: "User principal name" } }).failure).toBeUndefined();
  });

  it("google-workspace: the [Required] headers, a repeated row sent once", () => {
    const r = synced(GOOGLE_EXPORT, { preset: "google-workspace" });
    expect([...r.byEmail.keys()]).toEqual(["edsger@northwind.example", "grace@northwind.example"]);
    expect(r.byEmail.get("grace@northwind.example")).toMatchObject({
      firstName: "Grace",
      lastName: "Hopper",
      name: "Grace Hopper",
      role: "Director of Legal Operations",
      department: "Legal",
      employeeType: "Full time",
      managerEmail: "ada@northwind.example",
      businessPhone: "+1 212 555 0101",
      mobilePhone: "+1 917 555 0101",
      otherEmails: "grace.h@northwind.example",
    });
    expect(r.report.duplicates).toEqual([{ row: 4, who: "Grace Hopper", firstRow: 2, email: "grace@northwind.example" }]);
    // Personal and recovery addresses are not the custodian's: not synced.
    expect(r.report.unmapped).toEqual(
      expect.arrayContaining(["Recovery Email", "Home Secondary Email", "Employee ID", "Password [Required]"]),
    );
    const verdict = judge(GOOGLE_EXPORT, { preset: "google-workspace" });
    expect(verdict.failure).toBeUndefined();
    expect(verdict.warnings).toEqual([
      "CustodianDirectorySync of directory 5001: 1 row repeats an earlier row with the same email and values and is sent once: row 4 (grace@northwind.example, as row 2)",
    ]);
  });

  it("okta: profile attribute names; login can be mapped to the principal name", () => {
    const r = synced(OKTA_EXPORT, { preset: "okta", columns: { userPrincipalName: "login" } });
    expect(r.byEmail.get("margaret@northwind.example")).toMatchObject({
      userPrincipalName: "margaret@northwind.example",
      firstName: "Margaret",
      middleName: "Heafield",
      lastName: "Hamilton",
      name: "Margaret Heafield Hamilton",
      role: "eDiscovery Engineer",
      department: "eDiscovery",
      businessPhone: "+1 617 555 0100",
      mobilePhone: "+1 617 555 0107",
      managerName: "Grace Hopper",
      companyName: "Northwind Legal",
      employeeType: "Employee",
      preferredLanguage: "en-US",
    });
    // The profile. prefix of API-based exports reads the same.
    const prefixed = OKTA_EXPORT.replace(
      OKTA_HEADER,
      OKTA_HEADER.split(",")
        .map((h) => `profile.${h}`)
        .join(","),
    );
    expect(synced(prefixed, { preset: "okta" }).byEmail.get("ken@northwind.example")).toMatchObject({
      firstName: "Ken",
      department: "Analytics",
      role: "Analytics Lead",
    });
  });

  it("workday: delivered field labels, US dates converted, a worker without a work address left out", () => {
    const r = synced(WORKDAY_EXPORT, { preset: "workday", dateFormat: "MM/dd/yyyy" });
    expect(r.byEmail.get("barbara@northwind.example")).toMatchObject({
      firstName: "Barbara",
      lastName: "Liskov",
      name: "Barbara Liskov",
      role: "Investigations Lead",
      department: "Investigations (Grace Hopper)",
      officeLocation: "Boston",
      managerName: "Grace Hopper",
      employeeType: "Employee",
      employeeStartDate: "2012-09-15",
      employeeEndDate: "2025-12-31",
      companyName: "Northwind Legal",
    });
    expect(r.byEmail.get("frances@northwind.example")).toMatchObject({
      employeeStartDate: "2015-03-01",
      employeeEndDate: null,
      businessPhone: "+1 212 555 0105",
    });
    expect(r.report.leftOut).toEqual([{ row: 4, who: "Temp Worker" }]);
    expect(r.csv).not.toContain("Temp");
    const verdict = judge(WORKDAY_EXPORT, { preset: "workday", dateFormat: "MM/dd/yyyy" });
    expect(verdict.warnings).toEqual([
      "CustodianDirectorySync of directory 5001: 1 of 3 rows have neither an email nor a user principal name and are left out of the upload (the service refuses a whole file for one such row): row 4 (Temp Worker)",
    ]);
    expect(verdict.summary).toBe(
      "CustodianDirectorySync of directory 5001: 2 of 3 rows will be synced (preset workday); columns: email <- Email - Primary Work, businessPhone <- Phone - Primary Work, " +
        "companyName <- Company, employeeStartDate <- Hire Date, employeeEndDate <- Termination Date, managerName <- Manager, role <- Business Title, employeeType <- Worker Type, " +
        "department <- Supervisory Organization, officeLocation <- Location, name <- Worker, firstName <- Legal Name - First Name, lastName <- Legal Name - Last Name; " +
        "not synced (no property maps them): Employee ID; preset columns this file lacks: managerEmail, middleName",
    );
  });

  it("presetOfHeaders knows each export by its header row, and nothing else", () => {
    expect(presetOfHeaders(ENTRA_HEADER.split(","))).toBe("entra-id");
    expect(presetOfHeaders(ENTRA_DOCUMENTED_HEADER.split(","))).toBe("entra-id");
    expect(presetOfHeaders(M365_HEADER.split(","))).toBe("entra-id");
    expect(presetOfHeaders(GOOGLE_HEADER.split(","))).toBe("google-workspace");
    expect(presetOfHeaders(OKTA_HEADER.split(","))).toBe("okta");
    expect(presetOfHeaders(WORKDAY_HEADER.split(","))).toBe("workday");
    expect(presetOfHeaders(["email", "name", "department"])).toBeUndefined();
    expect(Object.keys(CUSTODIAN_PRESETS).sort()).toEqual(["entra-id", "google-workspace", "okta", "workday"]);
  });
});

describe("columns", () => {
  it("names a header per property; the other columns named like the service's headers map to themselves", () => {
    const text = "Mail,First name,Last name,Department,Office\nann@example.com,Ann,Lee,Legal,HQ\n";
    const r = synced(text, { columns: { email: "Mail", officeLocation: "Office" } });
    expect(r.byEmail.get("ann@example.com")).toMatchObject({
      firstName: "Ann",
      lastName: "Lee",
      name: "Ann Lee",
      department: "Legal",
      officeLocation: "HQ",
    });
    expect(r.report.unmapped).toEqual([]);
  });

  it("a list takes each row's first non-blank value; null leaves a property empty, even over a preset", () => {
    const r = synced(ENTRA_EXPORT, { preset: "entra-id", columns: { email: ["mail", "userPrincipalName"], department: null } });
    expect(r.report.withEmail).toBe(4);
    expect(r.byEmail.get("guest_contoso.example#EXT#@northwind.onmicrosoft.com")).toMatchObject({ name: "Guest Auditor" });
    expect(r.byEmail.get("alan.turing@northwind.example")?.department).toBeNull();
    expect(r.report.unmapped).toContain("department");
  });

  it("a header that is not in the file is an error listing the file's headers (a typo would blank a property for everyone)", () => {
    const err = mappingError("Mail,Name\nann@example.com,Ann\n", { columns: { email: "E-mail" } });
    expect(err.message).toBe(
      "custodian CSV row 1, column 'E-mail': columns.email names 'E-mail', which is not a header of the file (its headers: Mail, Name)",
    );
  });

  it("a mapped email column holding something else is an error naming the row and the column", () => {
    const err = mappingError(ENTRA_EXPORT, { preset: "entra-id", columns: { email: "displayName" } });
    expect(err.message).toBe(
      "custodian CSV row 2, column 'displayName': 'Ada Lovelace' is not an email address (the email comes from column 'displayName')",
    );
  });

  it("the same email twice with other values is an error naming both rows", () => {
    const err = mappingError("email,department\nann@example.com,Legal\nANN@example.com,Finance\n", {});
    expect(err.message).toBe(
      "custodian CSV row 3, column 'email': email 'ANN@example.com' already appears on row 2 with other values (email: 'ann@example.com' there, 'ANN@example.com' here); people are matched by email, so which row wins would be a guess: remove one",
    );
  });

  it("a header used twice is an error only when a property reads it", () => {
    expect(mappingError("email,Note,Note\na@example.com,x,y\n", { columns: { notes: "Note" } }).rule).toBe(
      "header 'Note' appears 2 times, so which column is meant would be a guess",
    );
    expect(synced("email,Note,Note\na@example.com,x,y\n", {}).report.unmapped).toEqual(["Note", "Note"]);
  });

  it("the CSV sent is the service's own format, the same whatever the order of the export's rows", () => {
    const [header, ...rows] = ENTRA_EXPORT.replace(/^\uFEFF/, "")
      .trimEnd()
      .split("\r\n");
    const reversed = csvFile([header!, ...rows.reverse()]);
    const a = mapCustodianExport(ENTRA_EXPORT, { preset: "entra-id" }).csv;
    expect(mapCustodianExport(reversed, { preset: "entra-id" }).csv).toBe(a);
    expect(a.split("\n")[0]).toBe(
      "email,business phone,company name,user principal name,employee start date,employee end date,manager name,manager email,mobile phone,role,employee type,department,fax number,office location,other emails,preferred language,notes,name,first name,middle name,last name",
    );
  });
});

describe("dates", () => {
  it("reads the declared format, always yyyy-MM-dd too, and drops a time or zone after the date", () => {
    expect(toIsoDate("2019-03-04")).toBe("2019-03-04");
    expect(toIsoDate("2019-03-04-08:00")).toBe("2019-03-04");
    expect(toIsoDate("2019-03-04T00:00:00Z")).toBe("2019-03-04");
    expect(toIsoDate("3/4/2019")).toBeUndefined();
    expect(toIsoDate("3/4/2019", "MM/dd/yyyy")).toBe("2019-03-04");
    expect(toIsoDate("3/4/2019 0:00", "dd/MM/yyyy")).toBe("2019-04-03");
    expect(toIsoDate("04.03.2019", "dd.MM.yyyy")).toBe("2019-03-04");
    expect(toIsoDate("2019-03-04", "dd.MM.yyyy")).toBe("2019-03-04");
    expect(toIsoDate("2/30/2019", "MM/dd/yyyy")).toBeUndefined();
  });

  it("a date the format does not fit is an error naming the row, the column and the option", () => {
    const err = mappingError(WORKDAY_EXPORT, { preset: "workday" });
    expect(err.message).toBe(
      "custodian CSV row 2, column 'Hire Date': date '3/1/2015' is not written yyyy-MM-dd: set dateFormat to how the file writes dates (yyyy-MM-dd, MM/dd/yyyy, dd/MM/yyyy, dd.MM.yyyy)",
    );
  });
});

describe("the verdict on rows without an email", () => {
  const rows = (withEmail: number, without: number) =>
    csvFile([
      "email,user principal name,name",
      ...Array.from({ length: withEmail }, (_, i) => `p${i}@example.com,,Person ${i}`),
      ...Array.from({ length: without }, (_, i) => `,svc${i}@corp.example,Service ${i}`),
    ]);

  it(`up to ${IGNORED_ROWS_LIMIT * 100}% of the rows: warnings naming them; above: a failure, unless allowed`, () => {
    const half = judge(rows(3, 3), {});
    expect(half.failure).toBeUndefined();
    expect(half.warnings).toEqual([
      "CustodianDirectorySync of directory 5001: 3 of 6 rows have a user principal name but no email; the service ignores them (the ignored output lists them): row 5 (Service 0, svc0@corp.example), row 6 (Service 1, svc1@corp.example), row 7 (Service 2, svc2@corp.example)",
    ]);
    const most = judge(rows(2, 7), {});
    expect(most.failure).toBe(
      "7 of 9 rows (78%) have no email and would not be synced (row 4 (Service 0), row 5 (Service 1), row 6 (Service 2), row 7 (Service 3), row 8 (Service 4) and 2 more): " +
        "a mis-mapped export is the likely cause. Columns whose values look like email addresses: 'user principal name' (78% of rows); map one with columns: { email: \"user principal name\" }. " +
        "To sync the 2 rows that have one anyway, set allowIgnoredRows: true.",
    );
    const allowed = judge(rows(2, 7), {}, true);
    expect(allowed.failure).toBeUndefined();
    expect(allowed.warnings[0]).toMatch(
      /^CustodianDirectorySync of directory 5001: 7 of 9 rows have a user principal name but no email; .* and 2 more$/,
    );
  });

  it("without an email-like column, it suggests the preset the header row looks like", () => {
    // A Google download read without its preset: no column is named like the service's email.
    const verdict = judge(GOOGLE_EXPORT, { columns: { department: "Department" } });
    expect(verdict.failure).toBe(
      "3 of 3 rows (100%) have no email and would not be synced (row 2, row 3, row 4): a mis-mapped export is the likely cause. " +
        "The header row looks like a Google Workspace Admin console 'Download users': set preset: \"google-workspace\". To sync the 0 rows that have one anyway, set allowIgnoredRows: true.",
    );
  });

  it("an address inside another notation (Microsoft 365's SMTP:proxy addresses) is not offered as the email column", () => {
    expect(mapCustodianExport(M365_EXPORT, { preset: "entra-id" }).report.emailLikeColumns).toEqual([
      { header: "User principal name", share: 1 },
    ]);
  });
});
