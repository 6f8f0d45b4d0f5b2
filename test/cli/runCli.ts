/** Runs the `pulumi-reviewadmin` command line in process, with its output captured. */
import { main } from "../../cli/main";
import type { Io } from "../../cli/command";

/** Runs main() with captured output. */
export async function runCli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = { out: (t) => void (out += t.endsWith("\n") ? t : t + "\n"), err: (t) => void (err += t.endsWith("\n") ? t : t + "\n") };
  const code = await main(argv, io);
  return { code, out, err };
}
