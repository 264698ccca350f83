/** The oldest Node.js a package's `engines.node` (`>=MAJOR.MINOR[.PATCH]`) allows, as `[major, minor, patch]`. */
export function minimumNode(packageJsonUrl: URL): [number, number, number];

/** Ends the process with one line on stderr and status 1 when this Node is older than `engines.node` allows. */
export function requireNode(program: string, packageJsonUrl: URL): void;
