import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleOperator } from './operator-bundle.js';

// An operator's image runs the operator only: what its project generates at build time (@opkit/controller-tools)
// stays out of the bundle, though src/api/index.ts lists each kind's CRD beside the webhook setup it runs.

const require = createRequire(import.meta.url);

describe.each(['@opkit/memcached-operator', '@opkit/redis-operator'])('the image bundle of %s', (name) => {
  it('holds no build-time code', async () => {
    const operatorDir = dirname(require.resolve(`${name}/package.json`));
    const bundle = new TextDecoder().decode(
      await bundleOperator({ operatorDir, entry: join(operatorDir, 'src', 'main.ts') }),
    );
    expect(bundle).toContain('libs/controller-runtime/src/manager/manager.ts');
    expect(bundle).not.toContain('libs/controller-tools/');
  }, 60_000);
});
