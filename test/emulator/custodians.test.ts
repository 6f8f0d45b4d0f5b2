/**
 * E5 over HTTP: syncing a custodian directory from a CSV sent as multipart form field `file`,
 * on the seeded world (see emulator/model/seed.ts for who is who).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { api, useEmulator } from "../support/emulatorHttp";

const emu = useEmulator();

describe("custodians (E5)", () => {
  const post = (role: string, csv: string, directoryId: number = SEEDED.directories.org) => {
    const form = new FormData();
    form.set("file", new Blob([csv], { type: "text/csv" }), "custodians.csv");
    return api(emu.url, emu.keys[role], "POST", `/v1/directories/${directoryId}/custodians`, form);
  };

  // Each test syncs into the seeded world's (empty) directories.
  beforeEach(() => {
    emu.reset();
  });

  it("syncs people, reports those with a principal name but no email, and overwrites by email", async () => {
    const r = await post(
      "legalHoldAdmin",
      "Email,First Name,Last Name,Department,User Principal Name\nann@n.example,Ann,Lee,Legal,\n,,,,svc@corp\n",
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ custodians: ["svc@corp"] });
    await post("orgAdmin", "email,name\nANN@n.example,Ann L.\n");
    const dir = emu.store.directories.get(SEEDED.directories.org);
    expect(dir.custodians).toHaveLength(1);
    expect(dir.custodians[0]).toMatchObject({ email: "ANN@n.example", name: "Ann L.", department: null });
  });

  it("answers 400 naming the row and the rule", async () => {
    const r = await post("orgAdmin", "email,employee start date\na@n.example,2024-02-30\n");
    expect(r.status).toBe(400);
    expect(r.body.title).toMatch(/row 2.*employee start date.*yyyy-MM-dd/);
    const none = await post("orgAdmin", "email,name\n,Nobody\n");
    expect(none.body.title).toMatch(/row 2: a person needs an 'email' or a 'user principal name'/);
  });

  it("checks access and the directory", async () => {
    const refused = await post("member", "email\na@n.example\n");
    expect(refused.status).toBe(403);
    expect(refused.body.title).toBe(
      `Forbidden: PostDirectoryCustodians needs org admin or LEGAL_HOLD_ADMIN in the organization owning directory ${SEEDED.directories.org}`,
    );
    expect((await post("orgAdmin", "email\na@n.example\n", SEEDED.directories.otherOrg)).status).toBe(403);
    expect((await post("orgAdmin", "email\na@n.example\n", 5999)).status).toBe(404);
  });
});
