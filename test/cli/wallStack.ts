/**
 * The stack the wall-report tests judge against (review walls, and the review packet's report): one
 * matter-team EthicalWall on the seeded open database, its team Alan and Margaret, Ada admitted by
 * an exception, as `pulumi stack export` shows its state after the wall removed Linus.
 */
import * as fs from "node:fs";
import { SEEDED } from "../../emulator";

/** The wall's exception: Ada, an org admin, admitted with the client's consent until 2099. */
export const ADA_EXCEPTION = {
  person: "ada@northwind.example",
  approver: "grace@northwind.example",
  reason: "administers the platform",
  clientConsentRef: "NVC-1",
  endsOn: "2099-01-01",
};

/** Writes to `file` a stack export holding the wall, with its removal of Linus at `removedAt`; without it, a stack with no wall. */
export function writeWallStack(file: string, removedAt?: string): string {
  const type = "pulumi-nodejs:dynamic/reviewadmin:EthicalWall";
  const db = SEEDED.databases.open;
  const outputs = {
    databaseIds: [db],
    team: ["alan@northwind.example", "margaret@northwind.example"],
    exceptions: [ADA_EXCEPTION],
    reason: "NvC matter team",
    onBreach: "remove",
    walledUsers: {},
    breaches: [],
    unenforceable: [],
    unreadableDatabaseIds: [],
    orgAdminReach: { [String(db)]: SEEDED.org },
    removals: [{ databaseId: db, userId: SEEDED.users.unaffiliated, email: "linus@example.com", permissions: ["DB_UPLOAD"], removedAt }],
  };
  const resources = removedAt ? [{ type, urn: `urn:pulumi:dev::access::${type}::nvc-team`, outputs }] : [];
  fs.writeFileSync(file, JSON.stringify({ version: 3, deployment: { resources } }));
  return file;
}
