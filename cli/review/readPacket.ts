/**
 * Reads a review packet written earlier (review.json), for `review --previous` and
 * `review apply-signoff --packet`; refuses anything else with the option's name.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../command";
import { PACKET_FORMAT, type ReviewPacket } from "./format";

/** A packet (review.json in the folder named, or the file itself) named by `--<option>`, checked before any request; a UsageError naming the option otherwise. */
export function readPacket(option: string, where: string): ReviewPacket {
  const file = fs.existsSync(where) && fs.statSync(where).isDirectory() ? path.join(where, "review.json") : where;
  let packet: ReviewPacket;
  try {
    packet = JSON.parse(fs.readFileSync(file, "utf8")) as ReviewPacket;
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new UsageError(`--${option} must name a review folder (or its review.json): cannot read ${file}: ${why}`);
  }
  if (packet?.format !== PACKET_FORMAT || !Array.isArray(packet.organizations) || Number.isNaN(Date.parse(packet.asOf)))
    throw new UsageError(`--${option} must name a packet written by this review ("format": "${PACKET_FORMAT}"); ${file} is not one`);
  return packet;
}
