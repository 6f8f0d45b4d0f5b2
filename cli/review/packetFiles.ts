/**
 * The files of a review packet, by name: review.md (render.ts) and review.html (html.ts) for
 * people, review.csv for spreadsheets and the sign-off, review.json for tools and the next
 * review's --previous, and with a stack walls.csv (packetWalls.ts). The manifest (manifest.ts)
 * hashes them.
 */
import { packetJson, type ReviewPacket } from "./format";
import { html } from "./html";
import { wallFiles } from "./packetWalls";
import { csv, markdown, UTC, withRisksShared, type RenderOptions } from "./render";

/** The files of a packet, by name. review.json and review.csv keep ISO times in UTC, for tools. */
export function renderPacket(p: ReviewPacket, o: RenderOptions = UTC): Record<string, string> {
  return withRisksShared(() => {
    // Once: review.html names the packet by its SHA-256.
    const json = packetJson(p);
    return {
      "review.md": markdown(p, o),
      "review.html": html(p, o, json),
      "review.csv": csv(p),
      "review.json": json,
      ...wallFiles(p),
    };
  });
}
