/**
 * Imported first by a program's entry (the demo): on a Node older than this package needs, prints
 * nodeProblem()'s one line and exits with code 1 before the entry's other imports load (undici,
 * which they pull in, dies on an old Node with a stack trace instead). Does nothing on a good Node.
 */
import { nodeProblem } from "../contract/nodeVersion";

const problem = nodeProblem();
if (problem) {
  process.stderr.write(problem + "\n");
  process.exit(1);
}
