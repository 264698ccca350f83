// `@opkit/test-cluster/vitest-projects` for Vite's config loader, which leaves the import to Node without the
// `@opkit/source` condition. In the workspace Node loads the TypeScript module itself (it strips the types of
// files outside node_modules), so a change needs no build; installed under node_modules, where Node strips no
// types, the package's build is loaded.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const installed = realpathSync(fileURLToPath(import.meta.url))
  .split(/[\\/]/)
  .includes('node_modules');
const module = installed ? './dist/testing/vitest-projects.js' : './src/testing/vitest-projects.ts';

export const { opkitGlobalSetups, opkitPrometheusVitestConfig, opkitVitestConfig } = await import(module);
