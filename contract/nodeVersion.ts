/**
 * The Node this package runs on (undici 8 needs 22.19), said in one line wherever the package is
 * entered: the CLI and the demo exit with it, the library's entry points throw it
 * (contract/requireNode.ts), so an old Node never dies with undici's stack trace instead.
 */

/** The oldest Node the package runs on. */
export const NODE_NEEDED = { major: 22, minor: 19 } as const;

/** One line saying which Node is needed, or undefined when this one will do. */
export function nodeProblem(version = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  if (major > NODE_NEEDED.major || (major === NODE_NEEDED.major && minor >= NODE_NEEDED.minor)) return undefined;
  return `pulumi-reviewadmin needs Node ${NODE_NEEDED.major}.${NODE_NEEDED.minor} or newer (Node 24 recommended); this is Node ${version}. Install one from https://nodejs.org or with your version manager (nvm install 24).`;
}
