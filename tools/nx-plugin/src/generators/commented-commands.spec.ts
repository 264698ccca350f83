import { expect, it } from 'vitest';
import { commented } from './commented-commands.js';

it('puts every comment in one column, past the longest command', () => {
  expect(
    commented([
      ['npx nx run postgres-lite:run', 'run it'],
      ['export KUBECONFIG=<path>', ''],
      ['npx nx run bundle:build', 'every bundle'],
    ]),
  ).toBe(
    [
      'npx nx run postgres-lite:run  # run it',
      'export KUBECONFIG=<path>',
      'npx nx run bundle:build       # every bundle',
    ].join('\n'),
  );
});
