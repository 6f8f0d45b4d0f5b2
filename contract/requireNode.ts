/**
 * Imported first by the library's entry points (the package, `/runtime`, `/emulator`): on a Node
 * older than the package needs, throws nodeProblem()'s one line before the entry's other imports
 * load (undici, which they pull in, fails on an old Node with a TypeError that names no version).
 */
import { nodeProblem } from "./nodeVersion";

const problem = nodeProblem();
if (problem) throw new Error(problem);
