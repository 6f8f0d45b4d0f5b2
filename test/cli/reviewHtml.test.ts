/**
 * review.html (issue 36): the packet for a browser, one self-contained file, as written: every
 * name escaped (the page holds no markup but its own, its script allowed only by its hash), each
 * line of access with what the stack's code declares, a line's shade by the strongest access it
 * grants. Plain values. The page read where it is read, in headless Chromium, on a world of a few
 * thousand people: test/engine/reviewHtml.test.ts.
 */
import { describe, expect, it } from "vitest";
import { escapeHtml, html, matrixKind } from "../../cli/review/html";
import { sha256 } from "../../cli/review/manifest";
import { renderPacket } from "../../cli/review/packetFiles";
import { packetAtT0 } from "./reviewEmulator";

/** A name that would run as script if any of it reached the page as markup. */
const EVIL = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">`;
const sha256Base64 = (text: string) => Buffer.from(sha256(text), "hex").toString("base64");

describe("review.html, as written", () => {
  it("escapes every name: the page holds no markup but its own, its script only by hash", () => {
    const packet = packetAtT0([
      {
        id: 1,
        name: `Org ${EVIL}`,
        eventsRedacted: false,
        eventsRead: 0,
        databases: [{ id: 9, name: `DB ${EVIL}` }],
        databasesNotReadable: [{ id: 10, name: `Hidden ${EVIL}`, reason: `because ${EVIL}` }],
        people: [
          {
            key: `x${EVIL}@y.z`,
            userId: 7,
            name: EVIL,
            lines: [
              { scope: "organization", status: "member", permissions: ["ORG_ADMIN"], identifiers: [`AB ${EVIL}`] },
              { scope: "database 9", database: `DB ${EVIL}`, status: "granted", permissions: ["DB_UPLOAD"] },
            ],
            lastActivity: null,
            flags: ["privileged", "stale"],
          },
        ],
      },
    ]);
    const page = renderPacket(packet)["review.html"];
    // Only the page's own two script elements, its one image-free body, and no attribute a name wrote.
    expect(page.match(/<script/gi)).toHaveLength(2);
    expect(page).not.toMatch(/<img/i);
    expect(page).not.toMatch(/onerror="window/);
    expect(page).toContain(`Org ${escapeHtml(EVIL)} (organization 1)`);
    expect(page).toContain(escapeHtml(`Hidden ${EVIL}`));
    // The rows' JSON: no "<" at all, so nothing in it closes its script element.
    const json = /<script type="application\/json" id="review-data">([^]*?)<\/script>/.exec(page)![1]!;
    expect(json).not.toContain("<");
    expect(JSON.parse(json).organizations[0].people[0][1]).toBe(EVIL);
    // No source is allowed but the one script, by its hash; nothing else may load.
    const script = /<script>([^]*?)<\/script>/.exec(page)![1]!;
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)![1]!;
    expect(csp).toBe(`default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${sha256Base64(script)}'`);
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html(packet, { timeZone: "UTC" })).toBe(page);
  });

  it("with a stack, each line of access says what the code declares, and the walls go on the person's first line", () => {
    const packet = packetAtT0(
      [
        {
          id: 1,
          name: "Org",
          eventsRedacted: false,
          eventsRead: 0,
          databases: [{ id: 9, name: "DB" }],
          databasesNotReadable: [],
          people: [
            {
              key: "a@x.example",
              userId: 7,
              name: "A",
              lines: [
                { scope: "organization", status: "member", permissions: ["ORG_ADMIN"] },
                { scope: "database 9", database: "DB", status: "granted", permissions: ["DB_UPLOAD"] },
              ],
              lastActivity: null,
              flags: ["privileged", "stale", "not-in-code", "walled"],
              inCode: {
                lines: [
                  { scope: "organization", declaredBy: ['OrganizationMembers "org"'], notInCode: ["ORG_ADMIN"] },
                  { scope: "database 9", declaredBy: [] },
                ],
                walls: ['EthicalWall "w": conflict'],
              },
            },
          ],
        },
      ],
      { stack: { source: "acme/access/prod", resources: 3 } },
    );
    const page = renderPacket(packet)["review.html"];
    const data = JSON.parse(/<script type="application\/json" id="review-data">([^]*?)<\/script>/.exec(page)![1]!);
    expect(data.withCode).toBe(true);
    expect(data.headers.lines).toEqual([
      "person",
      "name",
      "risk",
      "access",
      "last activity",
      "flags",
      "in the stack's code",
      "decision",
      "justification",
    ]);
    const code = data.organizations[0].lines.map((l: number[]) => data.strings[l[3]!]);
    expect(code).toEqual([
      'organization: declared by the organization\'s roster "org" (OrganizationMembers); ORG_ADMIN not in code\nwalled by the ethical wall "w" (EthicalWall): conflict',
      "database 9: not in the code",
    ]);
    expect(page).toContain("Judged against the code of acme/access/prod (3 resources)");
  });

  it("shades a line by the strongest access it grants", () => {
    const line = (scope: string, status: any, permissions: string[], active?: boolean) =>
      matrixKind({ scope, status, permissions, ...(active === undefined ? {} : { active }) });
    expect(line("organization", "member", ["AI_ADMIN"])).toBe("admin");
    expect(line("organization", "invited", ["ORG_ADMIN"])).toBe("admin");
    expect(line("organization", "invited", [])).toBe("invited");
    expect(line("organization", "invitation-expired", ["ORG_ADMIN"])).toBe("expired");
    expect(line("organization", "member", [])).toBe("none");
    expect(line("database 1", "granted", ["DB_ADMIN", "DB_UPLOAD"])).toBe("admin");
    expect(line("database 1", "granted", ["DB_LEGAL_HOLD"])).toBe("write");
    expect(line("database 1", "granted", ["DB_UPLOAD"])).toBe("use");
    expect(line("database 1", "granted", ["DB_ADMIN"], false)).toBe("suspended");
  });
});
