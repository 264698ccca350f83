import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** An operator's project directory, found through its package (`@opkit/memcached-operator`) as npm linked it. */
export function operatorProjectDir(packageName: string): string {
  return dirname(createRequire(import.meta.url).resolve(`${packageName}/package.json`));
}
