/**
 * custodian-sync: the people of a legal-hold custodian directory, synced from custodians.csv (an
 * export of the HR system, kept next to the program). The file is checked against the service's
 * CSV rules at plan time, and its content is hashed, so editing it shows as a change.
 *
 * The service has no endpoint to read or empty a directory: `pulumi refresh` cannot see edits
 * made in the web application, and `pulumi destroy` leaves the people as last synced.
 *
 * Config (optional): `directoryId` (default 5001, the emulator's "Northwind Legal custodians"),
 * `csvPath` (default custodians.csv, relative to this folder). Credentials are the provider's
 * stack config (`reviewadmin:apiKey`, `reviewadmin:baseUrl`).
 */
import * as pulumi from "@pulumi/pulumi";
import * as reviewadmin from "pulumi-reviewadmin";

const config = new pulumi.Config();
const directoryId = config.getNumber("directoryId") ?? 5001;
// Relative paths are read by the provider from the project folder (the program's working directory).
const csvPath = config.get("csvPath") ?? "custodians.csv";

const custodians = new reviewadmin.CustodianDirectorySync("custodians", { directoryId, csvPath });

/** How many people the last sync sent. */
export const peopleSynced = custodians.peopleCount;
/** People the service ignored (a user principal name but no email). */
export const ignored = custodians.ignored;
/** SHA-256 of the CSV last sent: it changes when the file does. */
export const contentHash = custodians.contentHash;
