/**
 * The upstream part of a Debian version: without the epoch (`5:`) and the Debian revision (the last `-…`), so
 * `5:7.0.15-1~deb12u10` becomes `7.0.15` — the version the software itself reports, used in image tags.
 */
export function upstreamVersion(debianVersion: string): string {
  const withoutEpoch = debianVersion.replace(/^\d+:/, '');
  const dash = withoutEpoch.lastIndexOf('-');
  return dash > 0 ? withoutEpoch.slice(0, dash) : withoutEpoch;
}

/**
 * The first `parts` dot-separated numbers of a version (`1.6.18` → `1.6` for 2, `24` for 1), for the shorter
 * tags images are commonly pulled by.
 *
 * @throws Error when the version does not start with that many numeric components.
 */
export function versionPrefix(version: string, parts: number): string {
  const numbers = version.split('.').slice(0, parts);
  if (numbers.length < parts || !numbers.every((n) => /^\d+$/.test(n))) {
    throw new Error(`version ${JSON.stringify(version)} has no ${parts} leading numeric components`);
  }
  return numbers.join('.');
}

/**
 * The release an upstream version names, as a valid image tag: its leading dotted numbers, without repack or
 * pre-release suffixes (`1.2.3+dfsg` → `1.2.3`) that tags cannot hold.
 *
 * @throws Error when the version does not start with a number.
 */
export function releaseVersion(upstream: string): string {
  const match = /^\d+(?:\.\d+)*/.exec(upstream);
  if (match === null) throw new Error(`version ${JSON.stringify(upstream)} does not start with a number`);
  return match[0];
}
