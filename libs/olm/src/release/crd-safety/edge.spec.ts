import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../catalog/declcfg/load.js';
import { convertToModel } from '../../catalog/model/convert-to-model.js';
import { type CatalogEdge, catalogEdges } from '../edges.js';
import { crdSafetyOfEdge } from './edge.js';
import { fieldOf, type RawCrd, widgets } from './spec-fixtures.js';

const csv = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name: 'x' },
};

function edge(from: readonly object[] | undefined, to: readonly object[] | undefined): CatalogEdge {
  const bundle = (name: string, objects: readonly object[] | undefined) => ({
    name,
    objects: () => objects as readonly Record<string, unknown>[] | undefined,
  });
  return {
    package: 'widget-operator',
    channels: ['stable'],
    kinds: ['replaces'],
    from: bundle('widget-operator.v1.0.0', from),
    to: bundle('widget-operator.v1.1.0', to),
  };
}

const gadgets = (): RawCrd =>
  widgets((c) => {
    c.metadata.name = 'gadgets.example.com';
  });

describe('crdSafetyOfEdge', () => {
  it('pairs the CRDs of both bundles by name and reports each finding on the edge', () => {
    const next = widgets((c) => (fieldOf(c, 'size').type = 'string'));
    expect(crdSafetyOfEdge(edge([csv, gadgets(), widgets()], [next, csv, gadgets()]))).toEqual([
      {
        rule: 'crd/type-changed',
        severity: 'error',
        package: 'widget-operator',
        edge: { from: 'widget-operator.v1.0.0', to: 'widget-operator.v1.1.0' },
        subject: 'widgets.example.com v1 spec.size',
        message:
          'widget-operator.v1.0.0 → widget-operator.v1.1.0: widgets.example.com v1: field spec.size type changed integer → string',
      },
    ]);
  });

  it('finds nothing when the CRDs stay the same and a CRD is added', () => {
    expect(crdSafetyOfEdge(edge([widgets()], [widgets(), gadgets()]))).toEqual([]);
  });

  it('warns of a CRD the previous bundle owned that the next lacks', () => {
    expect(
      crdSafetyOfEdge(edge([widgets(), gadgets()], [widgets()])).map((f) => `${f.severity} ${f.message}`),
    ).toEqual([
      'warning widget-operator.v1.0.0 → widget-operator.v1.1.0: CRD gadgets.example.com of widget-operator.v1.0.0 is not in widget-operator.v1.1.0: its objects lose their operator',
    ]);
  });

  it('says once that it did not check an edge whose bundle carries no manifests', () => {
    expect(crdSafetyOfEdge(edge(undefined, [widgets()]))).toEqual([
      {
        rule: 'crd/not-checked',
        severity: 'info',
        package: 'widget-operator',
        edge: { from: 'widget-operator.v1.0.0', to: 'widget-operator.v1.1.0' },
        message:
          'widget-operator.v1.0.0 → widget-operator.v1.1.0: CRDs not checked: widget-operator.v1.0.0 carries no manifests',
      },
    ]);
    expect(crdSafetyOfEdge(edge(undefined, undefined)).map((f) => f.message)).toEqual([
      'widget-operator.v1.0.0 → widget-operator.v1.1.0: CRDs not checked: widget-operator.v1.0.0 and widget-operator.v1.1.0 carry no manifests',
    ]);
  });

  it('reports a CRD it cannot read as an error, not as safe', () => {
    const broken = widgets((c) => (fieldOf(c, 'size').minimum = 'one'));
    expect(
      crdSafetyOfEdge(edge([widgets()], [broken])).map((f) => `${f.severity} ${f.rule}: ${f.message}`),
    ).toEqual([
      'error crd/not-checked: widget-operator.v1.0.0 → widget-operator.v1.1.0: CRD widgets.example.com not checked: widgets.example.com v1: minimum is not a number at spec.size',
    ]);
  });

  it('leaves apiextensions.k8s.io/v1beta1 CRDs unchecked, saying so', () => {
    const legacy = { ...gadgets(), apiVersion: 'apiextensions.k8s.io/v1beta1' };
    expect(crdSafetyOfEdge(edge([legacy], [legacy])).map((f) => `${f.severity} ${f.rule}`)).toEqual([
      'info crd/not-checked',
    ]);
  });

  it('reads the CRDs of a bundle on two edges once: both edges hold the same bundle', async () => {
    const root = join(import.meta.dirname, '../../../../../catalog/configs/memcached-operator');
    const edges = catalogEdges(convertToModel(await loadCatalog(root)));
    const onTwoEdges = edges.find((e) => edges.some((other) => other.from.name === e.to.name));
    const next = edges.find((e) => e.from.name === onTwoEdges?.to.name);
    expect(onTwoEdges?.to).toBe(next?.from);
    expect(onTwoEdges?.to.objects()).toBe(next?.from.objects());
  });

  it('checks the released catalogs of this repository: redis 0.1.0 → 0.2.0 drops CEL rules, which OLM v1 refuses', async () => {
    const root = join(import.meta.dirname, '../../../../../catalog/configs');
    const findings = [];
    for (const operator of ['memcached-operator', 'redis-operator']) {
      const model = convertToModel(await loadCatalog(join(root, operator)));
      for (const e of catalogEdges(model)) findings.push(...crdSafetyOfEdge(e));
    }
    expect(
      findings.filter((f) => f.severity !== 'info').map((f) => `${f.severity} ${f.rule} ${f.subject}`),
    ).toEqual(['error crd/unhandled-change redisclusters.cache.example.com v1 spec']);
  });
});
