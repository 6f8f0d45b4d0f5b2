/**
 * The billing, activity-log, custodian and upload endpoints over HTTP, through startEmulator and
 * its seeded world (see emulator/seed.ts for who is who).
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED, startEmulator, type RunningEmulator } from "../emulator/index.js";
import { monthOf } from "../emulator/model/billingHistory.js";
import { configureUploads } from "../emulator/model/uploadStore.js";

let emu: RunningEmulator;

beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 0 });
  configureUploads(emu.store, { minPartSize: 1024, processingDelayMs: 20 });
});
afterAll(() => emu.close());

async function call(key: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const url = path.startsWith("http") ? path : `${emu.url}${path}`;
  const res = await fetch(url, { ...init, headers: { authorization: `Bearer ${emu.keys[key]}`, ...(init.headers as any) } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

const postJson = (key: string, path: string, body: unknown) =>
  call(key, path, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });

function previousMonth(): { year: number; month: number } {
  const { year, month } = monthOf(emu.store.clock.now());
  return month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 };
}

describe("billing (E7, E8, E28)", () => {
  it("E7 lists the organization's databases with their projects for the current month by default", async () => {
    const { status, body } = await call("orgAdmin", `/v1/organizations/${SEEDED.org}/billing`);
    expect(status).toBe(200);
    expect(body.data.map((d: any) => d.id)).toEqual([SEEDED.databases.open, SEEDED.databases.restricted]);
    expect(body.links.next).toBeNull();
    const open = body.data[0];
    expect(open.projects.map((p: any) => p.id)).toEqual([SEEDED.projects.complete, SEEDED.projects.partial, SEEDED.projects.eca]);
    const peak = open.monthBilling.peakSize;
    expect(peak.standard.billableGb + peak.eca.billableGb).toBeGreaterThan(0);
    // The ECA project's data is in eca storage.
    expect(open.projects[2].monthBilling.finalSize.eca.nativeBytes).toBeGreaterThan(0);
  });

  it("bills the project suspended mid previous month ACTIVE with final state SUSPENDED, and SUSPENDED now", async () => {
    const { year, month } = previousMonth();
    const prev = await call("orgAdmin", `/v1/databases/${SEEDED.databases.restricted}/billing?year=${year}&month=${month}`);
    expect(prev.status).toBe(200); // orgAdminAccess is off, but billing is summary information
    const suspended = prev.body.data.projects.find((p: any) => p.id === SEEDED.projects.suspended);
    expect(suspended.monthStatus).toMatchObject({ billingState: "ACTIVE", finalState: "SUSPENDED" });
    expect(typeof suspended.monthStatus.suspended).toBe("string");
    expect(prev.body.data.monthStatus).toMatchObject({ billingState: "ACTIVE", finalState: "ACTIVE" });

    const now = await call("parentOrgAdmin", `/v1/databases/${SEEDED.databases.restricted}/billing`);
    expect(now.body.data.projects.find((p: any) => p.id === SEEDED.projects.suspended).monthStatus.billingState).toBe("SUSPENDED");
  });

  it("E28 combines the database size as its largest project's", async () => {
    const { body } = await call("orgAdmin", `/v1/databases/${SEEDED.databases.open}/billing`);
    const total = (s: any) => ["standard", "eca"].reduce((n, k) => n + s[k].nativeBytes + s[k].processedBytes + s[k].producedBytes, 0);
    const largest = Math.max(...body.data.projects.map((p: any) => total(p.monthBilling.peakSize)));
    expect(total(body.data.monthBilling.peakSize)).toBe(largest);
  });

  it("E8 aggregates the parent and its sub-organizations; a project suspended mid-month counts as active", async () => {
    const { year, month } = previousMonth();
    const q = `year=${year}&month=${month}`;
    const agg = await call("parentOrgAdmin", `/v1/organizations/${SEEDED.parentOrg}/billing/aggregate?${q}`);
    expect(agg.status).toBe(200);
    // Previous month: every project was billed active (3005 was suspended mid-month), so nothing is suspended.
    expect(agg.body.data.suspended.peakSize.standard.nativeBytes).toBe(0);
    // Active = the sum of the database sizes of 101, 102 and 103 (not 104).
    let sum = 0;
    for (const db of [SEEDED.databases.parentOrg, SEEDED.databases.open, SEEDED.databases.restricted, SEEDED.databases.subOrg]) {
      const r = await call("parentOrgAdmin", `/v1/databases/${db}/billing?${q}`);
      sum += r.body.data.monthBilling.peakSize.standard.nativeBytes;
    }
    expect(agg.body.data.active.peakSize.standard.nativeBytes).toBe(sum);
    const current = await call("parentOrgAdmin", `/v1/organizations/${SEEDED.parentOrg}/billing/aggregate`);
    expect(current.body.data.suspended.finalSize.standard.nativeBytes).toBeGreaterThan(0);
  });

  it("checks access and refuses a month after the current one", async () => {
    expect((await call("member", `/v1/organizations/${SEEDED.org}/billing`)).status).toBe(403);
    expect((await call("subOrgAdmin", `/v1/organizations/${SEEDED.parentOrg}/billing/aggregate`)).status).toBe(403);
    expect((await call("parentOrgAdmin", `/v1/organizations/${SEEDED.subOrg}/billing`)).status).toBe(200);
    expect((await call("databaseAdmin", `/v1/databases/${SEEDED.databases.restricted}/billing`)).status).toBe(200);
    const { year } = monthOf(emu.store.clock.now());
    const future = await call("orgAdmin", `/v1/organizations/${SEEDED.org}/billing?year=${year + 1}&month=1`);
    expect(future.status).toBe(400);
    expect(future.body.title).toMatch(/year/);
    expect((await call("orgAdmin", `/v1/organizations/${SEEDED.org}/billing?month=13`)).status).toBe(400);
  });
});

describe("activity log (E10, E11, E12)", () => {
  it("E10 pages a year of events with the default limit, never splitting a shared timestamp, losing or repeating nothing", async () => {
    const now = emu.store.clock.now();
    let next: string | null = `/v1/organizations/${SEEDED.org}/events?begin=${now - 400 * 86_400_000}&end=${now + 1}`;
    const ids: number[] = [];
    const sizes: number[] = [];
    while (next) {
      const r = await call("orgAdmin", next);
      expect(r.status).toBe(200);
      ids.push(...r.body.data.map((e: any) => e.id));
      sizes.push(r.body.data.length);
      next = r.body.links.next;
    }
    expect(sizes[0]).toBeGreaterThan(1000); // the seeded group straddling the page boundary
    expect(new Set(ids).size).toBe(ids.length);
    const all = await call("orgAdmin", `/v1/organizations/${SEEDED.org}/events/recent?limit=10000`);
    expect(ids).toEqual(all.body.data.events.map((e: any) => e.id));
    expect(ids.length).toBeGreaterThanOrEqual(1500);
  });

  it("E11 reads after an event id and E12 the most recent, with data and description for an org admin", async () => {
    const first = await call("orgAdmin", `/v1/organizations/${SEEDED.org}/events/after/0?limit=5`);
    expect(first.body.data).toHaveLength(5);
    expect(first.body.data[0].data).not.toBeNull();
    const second = await call("orgAdmin", first.body.links.next);
    expect(second.body.data[0].id).toBeGreaterThan(first.body.data[4].id);
    const recent = await call("orgAdmin", `/v1/organizations/${SEEDED.org}/events/recent?limit=3`);
    expect(recent.body.data.events).toHaveLength(3);
    expect(typeof recent.body.data.events[0].description).toBe("string");
  });

  it("nulls data and description for a parent organization key and refuses a member", async () => {
    const r = await call("parentOrgAdmin", `/v1/organizations/${SEEDED.org}/events/recent?limit=3`);
    expect(r.status).toBe(200);
    for (const e of r.body.data.events) expect(e).toMatchObject({ data: null, description: null });
    expect((await call("member", `/v1/organizations/${SEEDED.org}/events/recent`)).status).toBe(403);
    expect((await call("orgAdmin", `/v1/organizations/${SEEDED.org}/events?begin=10&end=5`)).status).toBe(400);
  });
});

describe("custodians (E5)", () => {
  const post = (key: string, csv: string, directoryId: number = SEEDED.directories.org) => {
    const form = new FormData();
    form.set("file", new Blob([csv], { type: "text/csv" }), "custodians.csv");
    return call(key, `/v1/directories/${directoryId}/custodians`, { method: "POST", body: form });
  };

  it("syncs people, reports those with a principal name but no email, and overwrites by email", async () => {
    const r = await post("legalHoldAdmin", "Email,First Name,Last Name,Department,User Principal Name\nann@n.example,Ann,Lee,Legal,\n,,,,svc@corp\n");
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ custodians: ["svc@corp"] });
    await post("orgAdmin", "email,name\nANN@n.example,Ann L.\n");
    const dir = emu.store.directory(SEEDED.directories.org);
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

describe("uploads (up1 to up5 and the part PUT)", () => {
  const db = SEEDED.databases.restricted;

  it("creates a dataset and a file, uploads parts to pre-authenticated URLs, resumes, and completes", async () => {
    const ds = await postJson("databaseAdmin", `/v1/databases/${db}/datasets`, { name: "Custodian A", timezone: "Europe/London" });
    expect(ds.status).toBe(200);
    const sf = await postJson("databaseAdmin", `/v1/databases/${db}/datasets/${ds.body.data.id}/sourceFiles`, { filename: "a.zip" });
    expect(sf.body.data).toMatchObject({ state: "UPLOADING" });
    const id = sf.body.data.id;

    const parts = [Buffer.alloc(1500, 1), Buffer.alloc(700, 2)];
    for (const n of [2, 1]) {
      const u = await postJson("databaseAdmin", `/v1/databases/${db}/sourceFiles/${id}/parts/${n}`, {});
      expect(u.body.data.partNumber).toBe(n);
      expect(u.body.data.url.startsWith(`${emu.url}/_upload/`)).toBe(true);
      // No API key: the URL is the credential.
      const put = await fetch(u.body.data.url, { method: "PUT", body: parts[n - 1] });
      expect(put.status).toBe(200);
      expect(put.headers.get("etag")).toBe(`"${createHash("md5").update(parts[n - 1]).digest("hex")}"`);
    }
    const listed = await call("databaseAdmin", `/v1/databases/${db}/sourceFiles/${id}/parts`);
    expect(listed.body.data.map((p: any) => [p.partNumber, p.size])).toEqual([[1, 1500], [2, 700]]);

    const wrong = await postJson("databaseAdmin", `/v1/databases/${db}/sourceFiles/${id}/complete`, {
      etags: listed.body.data.map((p: any) => p.etag),
      sha1: "a".repeat(40),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.title).toMatch(/sha1/);
    const done = await postJson("databaseAdmin", `/v1/databases/${db}/sourceFiles/${id}/complete`, {
      etags: listed.body.data.map((p: any) => p.etag),
      sha1: createHash("sha1").update(Buffer.concat(parts)).digest("hex"),
    });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ id, state: "PROCESSING" });
  });

  it("answers 422 naming the dataset limit, and 403 without upload permission", async () => {
    configureUploads(emu.store, { minPartSize: 1024, datasetLimit: 1 });
    const over = await postJson("databaseAdmin", `/v1/databases/${db}/datasets`, { name: "one too many" });
    expect(over.status).toBe(422);
    expect(over.body.title).toMatch(/dataset limit of 1 datasets per database/);
    // Org admin of the owner, but the database has orgAdminAccess off.
    expect((await postJson("orgAdmin", `/v1/databases/${db}/datasets`, { name: "x" })).status).toBe(403);
    expect((await postJson("member", `/v1/databases/${SEEDED.databases.open}/datasets`, { name: "x" })).status).toBe(403);
  });
});
