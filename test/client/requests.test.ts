/**
 * The HTTP client's requests and answers against a scripted loopback server: which URLs it
 * accepts, what it sends, how it reads error bodies, and getClient's sharing.
 */
import { describe, expect, it } from "vitest";
import {
  ApiError,
  ClientClosedError,
  getClient,
  InsecureUrlError,
  ParameterError,
  ResponseValidationError,
  ReviewAdminClient,
} from "../../provider/client";
import { db, invitation, newKey, ok, useScriptedClients } from "./scriptedClients";

const t = useScriptedClients();

describe("URLs", () => {
  it("refuses plain http to a host that is not loopback, with a clear message", () => {
    for (const baseUrl of ["http://example.com", "http://10.0.0.1:8080", "http://127.0.0.1.nip.io"]) {
      expect(() => new ReviewAdminClient({ baseUrl, apiKey: newKey() })).toThrow(InsecureUrlError);
    }
    expect(() => new ReviewAdminClient({ baseUrl: "http://example.com", apiKey: newKey() })).toThrow(/plain http.*not loopback/);
    expect(() => new ReviewAdminClient({ baseUrl: "ftp://example.com", apiKey: newKey() })).toThrow(/must use https/);
    expect(() => new ReviewAdminClient({ baseUrl: "https://u:p@example.com", apiKey: newKey() })).toThrow(/user name or password/);
  });

  it("accepts https anywhere and http to 127.0.0.0/8, localhost and [::1]", async () => {
    for (const baseUrl of [
      "https://api.example.com/",
      "http://127.0.0.1:1",
      "http://127.9.8.7",
      "http://localhost:8080",
      "http://[::1]:8080",
    ]) {
      const c = new ReviewAdminClient({ baseUrl, apiKey: newKey() });
      expect(c.baseUrl).toBe(baseUrl.replace(/\/$/, ""));
      await c.close();
    }
  });

  it("refuses a non-loopback http part URL before sending", async () => {
    await expect(t.client().putPart("http://storage.example.com/p?sig=s", Buffer.from("x"))).rejects.toThrow(InsecureUrlError);
  });
});

describe("requests", () => {
  it("sends the key as a Bearer token, JSON bodies with their content type, and returns data", async () => {
    const c = t.client();
    const key = t.keyOf(c);
    t.server.expect({
      method: "POST",
      path: "/v1/organizations/5/users",
      reply: ok({ invalid: [], invites: [invitation], users: [] }),
    });
    const data = await c.call(
      "PostOrganizationUsers",
      { orgId: 5 },
      { users: [{ email: "a@example.com", firstName: "A", lastName: "B" }] },
    );
    expect(data.invites[0].email).toBe("a@example.com");
    const [req] = t.server.received;
    expect(req.headers.authorization).toBe(`Bearer ${key}`);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(req.body.toString())).toEqual({ users: [{ email: "a@example.com", firstName: "A", lastName: "B" }] });
    expect(c.stats).toEqual({ requests: 1, retries: 0, throttled: 0, byOperation: { PostOrganizationUsers: 1 } });
  });

  it("keeps a base URL's path prefix and builds the query from params", async () => {
    const c = t.client({ baseUrl: t.server.url + "/api/" });
    t.server.expect({
      method: "GET",
      path: "/api/v1/organizations/3/billing?year=2024&month=2&limit=10",
      reply: ok([], { links: { next: null } }),
    });
    expect(await c.call("GetOrganizationBilling", { orgId: 3, year: 2024, month: 2, limit: 10 })).toEqual([]);
  });

  it("sends E5's FormData as multipart", async () => {
    const c = t.client();
    t.server.expect({ method: "POST", path: "/v1/directories/4/custodians", reply: ok({ custodians: ["x"] }) });
    const form = new FormData();
    form.append("file", new Blob(["email,name\na@example.com,A\n"], { type: "text/csv" }), "custodians.csv");
    expect(await c.call("PostDirectoryCustodians", { directoryId: 4 }, form)).toEqual({ custodians: ["x"] });
    const [req] = t.server.received;
    expect(req.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(req.body.toString()).toContain('name="file"; filename="custodians.csv"');
    expect(req.body.toString()).toContain("a@example.com,A");
  });

  it("returns undefined for an empty answer of an envelope-none route, and data when there is one", async () => {
    const c = t.client();
    t.server.expect(
      { method: "DELETE", path: "/v1/organizations/1/users/9", reply: { status: 204 } },
      { method: "DELETE", path: "/v1/organizations/1/invitations", reply: ok({ deleted: true }) },
    );
    expect(await c.call("DeleteOrganizationUser", { orgId: 1, userId: 9 })).toBeUndefined();
    expect(await c.call("DeleteOrganizationInvitation", { orgId: 1 }, { email: "a@example.com" })).toEqual({ deleted: true });
    expect(JSON.parse(t.server.received[1].body.toString())).toEqual({ email: "a@example.com" });
  });

  it("refuses bad params and bodies before sending anything, naming the parameter", async () => {
    const c = t.client();
    const cases: [() => Promise<unknown>, string][] = [
      [() => c.call("GetDatabases", { limit: 201 }), "limit"],
      [() => c.call("GetDatabase", { databaseId: 0 }), "databaseId"],
      // An id given as text must be plain decimal digits: Number() would read these as 102, 1000, 12.
      [() => c.call("GetDatabase", { databaseId: "0x66" }), "databaseId"],
      [() => c.call("GetOrganization", { orgId: "1e3" }), "orgId"],
      [() => c.call("GetOrganizationUser", { orgId: " 12", userId: 1 }), "orgId"],
      [() => c.call("GetOrganizationUser", { orgId: 12, userId: "12.0" }), "userId"],
      [() => c.call("GetOrganizationBilling", { orgId: 1, month: 13 }), "month"],
      [() => c.call("PostOrganizationUsers", { orgId: 1 }, { users: [] }), "body.users"],
      [
        () => c.call("PutDatabaseUser", { databaseId: 1, userId: 2 }, { databasePermissions: ["DB_ADMIN", "DB_ADMIN"] }),
        "body.databasePermissions",
      ],
      [() => c.call("PostOrganizationInvitationResend", { orgId: 1 }, undefined as never), "body"],
      [() => c.call("PostDirectoryCustodians", { directoryId: 1 }, new FormData()), "body"],
      [() => c.call("GetCurrentUser", {}, { x: 1 } as never), "body"],
      [() => c.listAll("GetDatabases", { limit: 0 }), "limit"],
    ];
    for (const [run, parameter] of cases) {
      const err = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, parameter).toBeInstanceOf(ParameterError);
      expect((err as ParameterError).parameter).toBe(parameter);
    }
    expect(t.server.received).toEqual([]);
    expect(c.stats.requests).toBe(0);
  });
});

describe("errors", () => {
  it("reads a {title, status} body into a one-line message", async () => {
    const c = t.client();
    t.server.expect({ method: "GET", path: "/v1/databases/7", reply: { status: 404, json: { title: "Not Found", status: 404 } } });
    const err = (await c.call("GetDatabase", { databaseId: 7 }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe("GetDatabase GET /v1/databases/7: 404 Not Found");
    expect(err).toMatchObject({
      code: "RA_ERR_API",
      status: 404,
      title: "Not Found",
      operationId: "GetDatabase",
      method: "GET",
      path: "/v1/databases/7",
      attempts: 1,
    });
    expect(err.body).toEqual({ title: "Not Found", status: 404 });
  });

  it("reads a {message, status} body", async () => {
    const c = t.client();
    t.server.expect({
      method: "DELETE",
      path: "/v1/organizations/1/users/9",
      reply: { status: 404, json: { message: "User 9 is not a member", status: 404 } },
    });
    const err = (await c.call("DeleteOrganizationUser", { orgId: 1, userId: 9 }).catch((e: unknown) => e)) as ApiError;
    expect(err.message).toBe("DeleteOrganizationUser DELETE /v1/organizations/1/users/9: 404 User 9 is not a member");
    expect(err.serviceMessage).toBe("User 9 is not a member");
    expect(err.title).toBeUndefined();
  });

  it("makes an ApiError of a non-JSON error body", async () => {
    const c = t.client();
    t.server.expect({
      method: "POST",
      path: "/v1/organizations/1/invitations/resend",
      reply: { status: 502, text: "<html>\n<b>Bad gateway</b>\n</html>" },
    });
    const err = (await c
      .call("PostOrganizationInvitationResend", { orgId: 1 }, { email: "a@example.com" })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe("PostOrganizationInvitationResend POST /v1/organizations/1/invitations/resend: 502 Bad Gateway");
    expect(err.body).toBe("<html>\n<b>Bad gateway</b>\n</html>");
  });

  it("names the field of a response that does not match the schema", async () => {
    const c = t.client();
    t.server.expect(
      { method: "GET", path: "/v1/databases/1", reply: ok({ ...db(1), name: 5 }) },
      { method: "GET", path: "/v1/databases", reply: ok([db(1), { ...db(2), id: "two" }], { links: { next: null } }) },
      { method: "GET", path: "/v1/organizations", reply: ok([]) },
      { method: "GET", path: "/v1/users/me", reply: { status: 200, text: "not json" } },
    );
    const fieldOf = (p: Promise<unknown>) =>
      p.then(
        () => "resolved",
        (e: unknown) => (e as ResponseValidationError).fieldPath,
      );
    expect(await fieldOf(c.call("GetDatabase", { databaseId: 1 }))).toBe("data.name");
    expect(await fieldOf(c.call("GetDatabases", {}))).toBe("data.1.id");
    expect(await fieldOf(c.call("GetOrganizations", {}))).toBe("links.next");
    expect(await fieldOf(c.call("GetCurrentUser", {}))).toBe("(body)");
  });
});

describe("getClient", () => {
  it("shares one client per base URL, key and rate, and replaces a closed one", async () => {
    const apiKey = newKey();
    const opts = { baseUrl: t.server.url, apiKey };
    const a = getClient(opts);
    t.track(a);
    expect(getClient({ ...opts, baseUrl: t.server.url + "/" })).toBe(a);
    const b = getClient({ ...opts, requestsPerSecond: 5 });
    t.track(b);
    expect(b).not.toBe(a);
    const other = getClient({ ...opts, apiKey: newKey() });
    t.track(other);
    expect(other).not.toBe(a);
    await a.close();
    await expect(a.call("GetCurrentUser", {})).rejects.toThrow(ClientClosedError);
    const c = getClient(opts);
    t.track(c);
    expect(c).not.toBe(a);
  });
});
