import { describe, expect, it } from 'vitest';
import { olmInstallManifests } from './manifests.js';

type Container = { image: string; command: string[] };
type PodSpec = { template: { spec: { containers: Container[] } } };

describe("OLM's install manifests", () => {
  const manifests = olmInstallManifests({ version: '0.46.0' });
  const find = (kind: string, name: string) =>
    manifests.resources.find((r) => r.kind === kind && r.metadata.name === name);

  it("define OLM's eight CRDs with their storage version first and a status subresource", () => {
    expect(manifests.crds.map((c) => c.metadata.name)).toEqual([
      'catalogsources.operators.coreos.com',
      'clusterserviceversions.operators.coreos.com',
      'installplans.operators.coreos.com',
      'olmconfigs.operators.coreos.com',
      'operatorconditions.operators.coreos.com',
      'operatorgroups.operators.coreos.com',
      'operators.operators.coreos.com',
      'subscriptions.operators.coreos.com',
    ]);
    const groups = manifests.crds.find((c) => c.metadata.name.startsWith('operatorgroups'))?.spec;
    expect(groups?.versions).toMatchObject([
      { name: 'v1', served: true, storage: true, subresources: { status: {} } },
      { name: 'v1alpha2', served: true, storage: false },
    ]);
    expect(groups?.names).toMatchObject({ kind: 'OperatorGroup', shortNames: ['og'], categories: ['olm'] });
  });

  it('create the namespaces before what lives in them, and the operators from the given image', () => {
    const order = manifests.resources.map((r) => `${r.kind}/${r.metadata.name}`);
    expect(order.slice(0, 2)).toEqual(['Namespace/olm', 'Namespace/operators']);
    expect(order.indexOf('ServiceAccount/olm-operator-serviceaccount')).toBeLessThan(
      order.indexOf('Deployment/olm-operator'),
    );
    expect(order).toContain('OperatorGroup/global-operators');
    expect(order.at(-1)).toBe('ClusterServiceVersion/packageserver');
    expect(order).not.toContain('CatalogSource/operatorhubio-catalog');

    const custom = olmInstallManifests({
      version: '0.46.0',
      image: 'registry.example/olm:v0.46.0',
      opmImage: 'registry.example/opm:v1.73.0',
      packageServer: false,
    });
    const catalog = custom.resources.find((r) => r.metadata.name === 'catalog-operator')?.spec as PodSpec;
    expect(catalog.template.spec.containers[0]).toMatchObject({
      image: 'registry.example/olm:v0.46.0',
      command: [
        '/bin/catalog',
        '--namespace',
        'olm',
        '--util-image',
        'registry.example/olm:v0.46.0',
        '--opmImage',
        'registry.example/opm:v1.73.0',
      ],
    });
    expect(custom.resources.map((r) => r.kind)).not.toContain('ClusterServiceVersion');
  });

  it("run upstream's image of the version by default", () => {
    const olm = find('Deployment', 'olm-operator')?.spec as PodSpec;
    expect(olm.template.spec.containers[0]?.image).toBe('quay.io/operator-framework/olm:v0.46.0');
    expect(olm.template.spec.containers[0]?.command[0]).toBe('/bin/olm');
  });
});
