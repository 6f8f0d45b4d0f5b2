/**
 * Column presets for the people exports legal-hold teams start from: which column of each export
 * fills which property of a custodian. Header names are matched without regard to case; where an
 * export has had more than one layout, a property lists every known header and takes the first
 * one the file has (a column-level choice, never a mix of columns within a file).
 *
 * Where the names come from (docs/custodians.md says the same for users):
 * - entra-id: the Entra admin center's "Download users" file. Its attribute names
 *   (userPrincipalName, displayName, surname, mail, givenName, ..., physicalDeliveryOfficeName,
 *   mobile) are in Microsoft's page for the bulk download; a later file seen in a public write-up
 *   has id, officeLocation, mobilePhone, companyName instead. Confirmed from those two sources.
 *   The Microsoft 365 admin center's "Export users" file (User principal name, Display name,
 *   First name, Last name, Title, Department, Office, Phone number, Mobile Phone, Fax, Preferred
 *   language, ... and no mail column) is covered by the same preset: those labels are an
 *   assumption from memory, corroborated by one public sample only.
 * - google-workspace: the Admin console's "Download users" file (First Name [Required], Last
 *   Name [Required], Email Address [Required], ..., Employee Title, Manager Email, Department,
 *   Work Phone, Mobile Phone, Work Secondary Email). Confirmed: the same header row appears in
 *   several independent public tools that read or write that file.
 * - okta: an assumption. Okta has no one user export; the attribute names of Okta's user
 *   profile (login, firstName, lastName, email, title, department, manager, ...) are what Okta's
 *   own CSV import template uses (confirmed in Okta's support forum) and what API-based exports
 *   write, sometimes prefixed `profile.`; both spellings are listed.
 * - workday: an assumption. Workday reports are built per tenant, so there is no fixed header
 *   row; the preset knows the labels of Workday-delivered fields as they appear in public code
 *   reading Workday report exports (Email - Primary Work, Legal Name - First Name, Legal Name -
 *   Last Name, Business Title, Hire Date, Termination Date, Worker, Manager, ...). Check your
 *   report's header row and add `columns` for what differs.
 */
import type { CustodianProperty } from "../../contract/custodianCsv";

/** The name of a preset. */
export type CustodianPreset = "entra-id" | "okta" | "google-workspace" | "workday";

/** One preset: for each property it fills, the headers that may hold it, first match wins. */
export interface PresetDefinition {
  /** What export it reads, for messages and docs. */
  title: string;
  columns: Partial<Record<CustodianProperty, readonly string[]>>;
  /** Headers that, together, mark a file as this export (used to suggest the preset). */
  signature: readonly (readonly string[])[];
}

/** Every preset, by name. */
export const CUSTODIAN_PRESETS: Readonly<Record<CustodianPreset, PresetDefinition>> = {
  "entra-id": {
    title: "Microsoft Entra ID 'Download users' (or Microsoft 365 admin center 'Export users')",
    columns: {
      email: ["mail"],
      userPrincipalName: ["userPrincipalName", "User principal name"],
      firstName: ["givenName", "First name", "Given name"],
      lastName: ["surname", "Last name"],
      name: ["displayName", "Display name"],
      role: ["jobTitle", "Job title", "Title"],
      department: ["department"],
      officeLocation: ["officeLocation", "physicalDeliveryOfficeName", "Office"],
      businessPhone: ["telephoneNumber", "Office phone", "Phone number"],
      mobilePhone: ["mobilePhone", "mobile", "Mobile phone"],
      companyName: ["companyName", "Company name"],
      faxNumber: ["Fax", "facsimileTelephoneNumber"],
      preferredLanguage: ["preferredLanguage", "Preferred language"],
    },
    signature: [
      ["userPrincipalName", "User principal name"],
      ["displayName", "Display name"],
    ],
  },
  okta: {
    title: "Okta user export (profile attribute names)",
    columns: {
      email: ["email", "profile.email", "Primary email"],
      firstName: ["firstName", "profile.firstName", "First name"],
      middleName: ["middleName", "profile.middleName"],
      lastName: ["lastName", "profile.lastName", "Last name"],
      name: ["displayName", "profile.displayName", "Display name"],
      role: ["title", "profile.title"],
      department: ["department", "profile.department"],
      businessPhone: ["primaryPhone", "profile.primaryPhone", "Primary phone"],
      mobilePhone: ["mobilePhone", "profile.mobilePhone", "Mobile phone"],
      managerName: ["manager", "profile.manager"],
      companyName: ["organization", "profile.organization"],
      employeeType: ["userType", "profile.userType"],
      preferredLanguage: ["preferredLanguage", "profile.preferredLanguage"],
    },
    signature: [
      ["login", "profile.login", "Username"],
      ["firstName", "profile.firstName"],
    ],
  },
  "google-workspace": {
    title: "Google Workspace Admin console 'Download users'",
    columns: {
      email: ["Email Address [Required]", "Email Address"],
      firstName: ["First Name [Required]", "First Name"],
      lastName: ["Last Name [Required]", "Last Name"],
      role: ["Employee Title"],
      department: ["Department"],
      employeeType: ["Employee Type"],
      managerEmail: ["Manager Email"],
      businessPhone: ["Work Phone"],
      mobilePhone: ["Mobile Phone"],
      otherEmails: ["Work Secondary Email"],
    },
    signature: [["Email Address [Required]"], ["Org Unit Path [Required]"]],
  },
  workday: {
    title: "Workday worker report (labels of Workday-delivered fields)",
    columns: {
      email: ["Email - Primary Work", "Primary Work Email", "Work Email"],
      firstName: ["Legal Name - First Name", "Preferred Name - First Name", "First Name"],
      middleName: ["Legal Name - Middle Name", "Middle Name"],
      lastName: ["Legal Name - Last Name", "Preferred Name - Last Name", "Last Name"],
      name: ["Worker", "Preferred Name", "Legal Name"],
      role: ["Business Title", "Job Title", "Job Profile"],
      department: ["Department", "Supervisory Organization"],
      employeeStartDate: ["Hire Date", "Original Hire Date"],
      employeeEndDate: ["Termination Date"],
      managerName: ["Manager", "Manager Name"],
      managerEmail: ["Manager Email"],
      employeeType: ["Worker Type", "Employee Type"],
      officeLocation: ["Location", "Work Location"],
      businessPhone: ["Phone - Primary Work", "Work Phone"],
      companyName: ["Company"],
    },
    signature: [
      ["Email - Primary Work", "Worker"],
      ["Employee ID", "Business Title", "Legal Name - First Name"],
    ],
  },
};

/** The preset names, for schemas and messages. */
export const PRESET_NAMES = Object.keys(CUSTODIAN_PRESETS) as [CustodianPreset, ...CustodianPreset[]];

/** The preset whose signature headers a header row has (each signature group by one of its names), if one does. */
export function presetOfHeaders(headers: readonly string[]): CustodianPreset | undefined {
  const have = new Set(headers.map((h) => h.trim().toLowerCase()));
  return PRESET_NAMES.find((name) => CUSTODIAN_PRESETS[name].signature.every((group) => group.some((h) => have.has(h.toLowerCase()))));
}
