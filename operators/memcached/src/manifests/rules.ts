// `nx run memcached:rules [file]`: writes the operator's Prometheus rules as the rule file Prometheus and promtool
// read (default dist/monitoring/rules.yaml), e.g. for `promtool check rules`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ruleFileYaml } from '@opkit/controller-runtime/monitoring';
import { memcachedRuleGroups } from '../monitoring/rules.js';

// Run as a script, not imported (a URL, so a path with spaces or other escaped characters matches too).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = resolve(process.argv[2] ?? 'dist/monitoring/rules.yaml');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, ruleFileYaml(memcachedRuleGroups));
  console.log(`wrote ${file}`);
}
