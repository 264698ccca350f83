import { customResourceDefinition } from '@opkit/controller-runtime';
import { GROUP, KIND, memcachedSchema, PLURAL, VERSION } from './schema.js';

/** The Memcached CRD, generated from the schema. */
export const memcachedCrd = customResourceDefinition({
  group: GROUP,
  kind: KIND,
  plural: PLURAL,
  versions: [
    {
      name: VERSION,
      served: true,
      storage: true,
      schema: memcachedSchema,
      printerColumns: [
        { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
        { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
        { name: 'Available', type: 'string', jsonPath: '.status.conditions[?(@.type=="Available")].status' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    },
  ],
});
