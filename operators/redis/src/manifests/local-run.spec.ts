import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const root = join(import.meta.dirname, '..', '..');

interface Container {
  name: string;
  env?: { name: string; value?: string }[];
}

/** The value config/manager/manager.yaml gives `variable` in the manager container: what a deploy runs with. */
function deployedEnv(variable: string): string | undefined {
  const docs = parseAllDocuments(readFileSync(join(root, 'config', 'manager', 'manager.yaml'), 'utf8'));
  for (const doc of docs) {
    const obj = doc.toJS() as {
      kind?: string;
      spec?: { template?: { spec?: { containers?: Container[] } } };
    };
    if (obj.kind !== 'Deployment') continue;
    const manager = obj.spec?.template?.spec?.containers?.find((c) => c.name === 'manager');
    return manager?.env?.find((e) => e.name === variable)?.value;
  }
  return undefined;
}

describe('nx run redis:run (the operator outside the cluster)', () => {
  it('runs with the operand image a deploy uses, so the README’s sample becomes Available', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      nx: { targets: { run: { options: { env?: Record<string, string> } } } };
    };
    const image = deployedEnv('RELATED_IMAGE_REDIS');
    expect(image, 'config/manager/manager.yaml: env RELATED_IMAGE_REDIS of the manager container').toMatch(
      /\S/,
    );
    expect(
      pkg.nx.targets.run.options.env?.RELATED_IMAGE_REDIS,
      'package.json: nx.targets.run.options.env.RELATED_IMAGE_REDIS',
    ).toBe(image);
  });
});
