/**
 * Reads a review packet written earlier (review.json), for `review --previous` and
 * `review apply-signoff --packet`, and a sign-off checked against it for the commands that look
 * back at one (verify-remediation, reconcile); refuses anything else with the option's name.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../command";
import { PACKET_FORMAT, type ReviewPacket } from "./format";
import { checkAgainstPacket, parseSignoff, type CheckedDecision } from "./signoff";

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

/** A file's text, or a UsageError naming `--<option>` and why it cannot be read. */
export function readOptionFile(option: string, file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`--${option} must name a readable file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? ""}`);
  }
}

/** --signoff and --packet of a command looking back at an applied sign-off: both read, the decisions checked against the packet. */
export function readSignedPacket(o: Record<string, unknown>): {
  signoffFile: string;
  signoffText: string;
  dir: string;
  packet: ReviewPacket;
  decisions: CheckedDecision[];
} {
  const signoffFile = o.signoff as string | undefined;
  const dir = o.packet as string | undefined;
  if (!signoffFile) throw new UsageError("--signoff is required");
  if (!dir) throw new UsageError("--packet is required");
  const packet = readPacket("packet", dir);
  const signoffText = readOptionFile("signoff", signoffFile);
  return { signoffFile, signoffText, dir, packet, decisions: checkAgainstPacket(parseSignoff(signoffFile, signoffText).decisions, packet) };
}
