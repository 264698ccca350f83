import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Manifest } from '../manifest/manifest.js';
import { kustomizeBaseCsv, manifestsKustomization } from './kustomize-base.js';

const crd: Manifest = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets' },
    versions: [
      { name: 'v1alpha1', schema: { openAPIV3Schema: { description: 'A widget.' } } },
      { name: 'v1', schema: { openAPIV3Schema: { description: 'A widget, stable.' } } },
    ],
  },
};

describe('kustomizeBaseCsv', () => {
  it('writes a fresh base with owned CRDs newest first and no placeholder fields', () => {
    const csv = parse(
      kustomizeBaseCsv([crd], undefined, 'widget-operator', { description: 'Runs widgets.' }),
    );
    expect(csv.metadata.name).toBe('widget-operator.v0.0.0');
    expect(csv.spec.description).toBe('Runs widgets.');
    expect(csv.spec.customresourcedefinitions.owned).toEqual([
      {
        name: 'widgets.example.com',
        version: 'v1',
        kind: 'Widget',
        displayName: 'Widget',
        description: 'A widget, stable.',
      },
      {
        name: 'widgets.example.com',
        version: 'v1alpha1',
        kind: 'Widget',
        displayName: 'Widget',
        description: 'A widget.',
      },
    ]);
    expect(csv.spec.installModes.filter((m: { supported: boolean }) => m.supported)).toEqual([
      { type: 'AllNamespaces', supported: true },
    ]);
    for (const field of ['provider', 'maintainers', 'links', 'icon'])
      expect(csv.spec).not.toHaveProperty(field);
  });

  it('keeps comments and layout of an existing base and only touches the owned CRDs and missing installModes', () => {
    const existing = [
      '# written by hand',
      'apiVersion: operators.coreos.com/v1alpha1',
      'kind: ClusterServiceVersion',
      'metadata:',
      '  name: widget-operator.v0.0.0',
      'spec:',
      '  displayName: Widgets # shown in the console',
      '  description: "Hand-written."',
      '  customresourcedefinitions:',
      '    owned:',
      '      - name: widgets.example.com',
      '        version: v1',
      '        kind: Widget',
      '        displayName: Widget (stable)',
      '        specDescriptors:',
      '          - path: size',
      '',
    ].join('\n');
    const text = kustomizeBaseCsv([crd], existing, 'widget-operator', { description: 'unused' });
    // Everything up to the owned list is the same text, comments included.
    expect(text.startsWith(existing.slice(0, existing.indexOf('      - name')))).toBe(true);
    const csv = parse(text);
    expect(csv.spec.customresourcedefinitions.owned[0]).toEqual({
      name: 'widgets.example.com',
      version: 'v1',
      kind: 'Widget',
      displayName: 'Widget (stable)',
      specDescriptors: [{ path: 'size', displayName: 'Size' }],
    });
    expect(csv.spec.customresourcedefinitions.owned[1].version).toBe('v1alpha1');
    expect(csv.spec.installModes).toHaveLength(4);
    expect(kustomizeBaseCsv([crd], text, 'widget-operator', { description: 'unused' })).toBe(text);
  });

  it('refuses a base that is not YAML or has no spec mapping', () => {
    expect(() => kustomizeBaseCsv([crd], 'spec: [', 'p', { description: 'd' })).toThrow(/^not YAML: /);
    expect(() => kustomizeBaseCsv([crd], 'kind: ClusterServiceVersion\n', 'p', { description: 'd' })).toThrow(
      'spec: missing, or not a mapping',
    );
  });
});

describe('manifestsKustomization', () => {
  it('lists the base CSV first, then the given parts', () => {
    expect(parse(manifestsKustomization('p', ['../default', '../samples'])).resources).toEqual([
      'bases/p.clusterserviceversion.yaml',
      '../default',
      '../samples',
    ]);
  });
});
