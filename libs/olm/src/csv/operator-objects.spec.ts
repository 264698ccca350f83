import { describe, expect, it } from 'vitest';
import type { Manifest } from '../manifest/manifest.js';
import { generateCsv } from './generate.js';
import { managerImages } from './operator-objects.js';
import { demoBaseCsv, demoOperatorObjects } from './testing.js';

const deployment = (name: string, containers: { name: string; image: string }[]): Manifest => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { template: { spec: { containers } } },
});

describe('managerImages', () => {
  it('names the container called manager, else the first container of the first deployment', () => {
    expect(
      managerImages([
        deployment('operator', [
          { name: 'proxy', image: 'proxy:1' },
          { name: 'manager', image: 'controller:latest' },
        ]),
        deployment('exporter', [{ name: 'exporter', image: 'exporter:1' }]),
      ]),
    ).toStrictEqual(['controller:latest']);
    expect(
      managerImages([deployment('operator', [{ name: 'main', image: 'controller:latest' }])]),
    ).toStrictEqual(['controller:latest']);
  });

  it('is the image the generated CSV replaces by the operator image', () => {
    const objects = demoOperatorObjects();
    const [placeholder] = managerImages(objects);
    const { csv } = generateCsv({
      base: demoBaseCsv(),
      objects,
      version: '0.1.0',
      operatorImage: 'demo:0.1.0',
    });
    const images = JSON.stringify(csv.spec.install);
    expect(placeholder).toBe('controller:latest');
    expect(images).not.toContain(JSON.stringify(placeholder));
    expect(images).toContain('"demo:0.1.0"');
  });
});
