import { customResourceDefinition } from '@opkit/controller-tools/crd';
import { GROUP, KIND, PLURAL, redisClusterSchema, VERSION } from './v1/redis-cluster.js';

/**
 * The RedisCluster CRD, generated from the schema. `@__PURE__`: the operator's bundle reaches this module
 * through src/api/index.ts but uses no CRD, so the bundler drops the build-time assembly.
 */
export const redisClusterCrd = /* @__PURE__ */ customResourceDefinition({
  group: GROUP,
  kind: KIND,
  plural: PLURAL,
  shortNames: ['rec'],
  versions: [
    {
      name: VERSION,
      served: true,
      storage: true,
      schema: redisClusterSchema,
      printerColumns: [
        { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
        { name: 'Primaries', type: 'integer', jsonPath: '.status.primaries' },
        { name: 'Ready', type: 'integer', jsonPath: '.status.readyNodes' },
        { name: 'State', type: 'string', jsonPath: '.status.clusterState' },
        { name: 'Available', type: 'string', jsonPath: '.status.conditions[?(@.type=="Available")].status' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    },
  ],
});
