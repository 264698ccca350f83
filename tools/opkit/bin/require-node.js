// The Node.js version check every bin runs first. It imports nothing but Node's own modules, so it runs on any
// Node that can load an ES module; the bin imports its program only after it passed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The oldest Node.js a package's `engines.node` allows: `[major, minor, patch]` of a `>=MAJOR.MINOR[.PATCH]`
 * range, the only form the packages of this repository use.
 */
export function minimumNode(packageJsonUrl) {
  const range = JSON.parse(readFileSync(packageJsonUrl, 'utf8')).engines?.node;
  const match = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range ?? '');
  if (!match) {
    throw new Error(
      `${fileURLToPath(packageJsonUrl)}: engines.node must be ">=MAJOR.MINOR[.PATCH]", got ${JSON.stringify(range)}`,
    );
  }
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

/**
 * Ends the process with one line on stderr and status 1 when this Node is older than the package's
 * `engines.node`: the dependencies that need a newer one fail later with errors that do not say why.
 */
export function requireNode(program, packageJsonUrl) {
  const minimum = minimumNode(packageJsonUrl);
  const running = process.versions.node.split('.').map(Number);
  const older = minimum.findIndex((part, i) => part !== running[i]);
  if (older >= 0 && running[older] < minimum[older]) {
    const wanted = minimum[2] === 0 ? minimum.slice(0, 2).join('.') : minimum.join('.');
    process.stderr.write(`${program} needs Node.js ${wanted} or later; this is ${process.version}\n`);
    process.exit(1);
  }
}
