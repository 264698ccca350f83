// `nx run memcached:rules [file]`: writes the operator's Prometheus rules as the rule file Prometheus and promtool
// read (default dist/monitoring/rules.yaml), e.g. for `promtool check rules`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ruleFileYaml } from '@opkit/controller-runtime/monitoring';
import { memcachedRuleGroups } from '../monitoring/rules.js';

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = resolve(process.argv[2] ?? 'dist/monitoring/rules.yaml');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, ruleFileYaml(memcachedRuleGroups));
  console.log(`wrote ${file}`);
}
