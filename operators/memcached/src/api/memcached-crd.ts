import { customResourceDefinition } from '@opkit/controller-tools/crd';
import * as v1alpha1 from './v1alpha1/memcached.js';
import * as v1beta1 from './v1beta1/memcached.js';

/**
 * The Memcached CRD, generated from the schemas: v1beta1 is stored, v1alpha1 still served (deprecated) and
 * converted by the operator's conversion webhook. The webhook stanza is added where the CRD is deployed
 * (kustomize's patch, OLM's webhook definition), not here. `@__PURE__`: the operator's bundle reaches this
 * module through src/api/index.ts but uses no CRD, so the bundler drops the build-time assembly.
 */
export const memcachedCrd = /* @__PURE__ */ customResourceDefinition({
  group: v1beta1.GROUP,
  kind: v1beta1.KIND,
  plural: v1beta1.PLURAL,
  versions: [
    {
      name: v1alpha1.VERSION,
      served: true,
      storage: false,
      deprecated: true,
      deprecationWarning:
        'cache.example.com/v1alpha1 Memcached is deprecated; use cache.example.com/v1beta1 Memcached',
      schema: v1alpha1.memcachedSchema,
      printerColumns: [
        { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
        { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
        { name: 'Available', type: 'string', jsonPath: '.status.conditions[?(@.type=="Available")].status' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    },
    {
      name: v1beta1.VERSION,
      served: true,
      storage: true,
      schema: v1beta1.memcachedSchema,
      printerColumns: [
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Memory', type: 'string', jsonPath: '.spec.memory' },
        { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
        { name: 'Available', type: 'string', jsonPath: '.status.conditions[?(@.type=="Available")].status' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    },
  ],
});
