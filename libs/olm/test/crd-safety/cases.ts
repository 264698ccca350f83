import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  fieldOf,
  type RawCrd,
  specOf,
  widgetSpec,
  widgets,
  widgetVersion,
} from '../../src/release/crd-safety/spec-fixtures.js';

/**
 * One CRD upgrade for the agreement test: the previous CRD (as a cluster has it) and the next (as the upgrade
 * applies it), and the rule families OLM v1 refuses it by (`<scope>:<crdify validation>`, scope `crd`, `same`
 * version or `served` versions), empty for a safe upgrade. The expectation says what the case is there to
 * cover; both crdify and `compareCrds` are held to it.
 */
export interface AgreementCase {
  readonly name: string;
  readonly previous: object;
  readonly next: object;
  readonly refusedBy: readonly string[];
}

const REPOSITORY = join(import.meta.dirname, '../../../..');

function bundleCrd(operator: string, version: string, file: string): object {
  return parse(
    readFileSync(join(REPOSITORY, 'bundles', operator, version, 'manifests', file), 'utf8'),
  ) as object;
}

const memcached = (version: string) =>
  bundleCrd('memcached-operator', version, 'cache.example.com_memcacheds.yaml');
const redis = (version: string) =>
  bundleCrd('redis-operator', version, 'cache.example.com_redisclusters.yaml');

/** Two served versions: v1alpha1 (stored) and v1, the second's spec changed by `edit`. */
function twoVersions(edit: (crd: RawCrd) => void = () => {}): RawCrd {
  return widgets((crd) => {
    crd.spec.versions = [widgetVersion('v1alpha1', true), widgetVersion('v1', false)];
    edit(crd);
  });
}

const webhook = {
  strategy: 'Webhook',
  webhook: {
    conversionReviewVersions: ['v1'],
    clientConfig: { service: { name: 'w', namespace: 'ns', path: '/convert' } },
  },
};

export const AGREEMENT_CASES: readonly AgreementCase[] = [
  { name: 'identical CRDs', previous: widgets(), next: widgets(), refusedBy: [] },
  {
    name: 'descriptions changed',
    previous: widgets(),
    next: widgets((c) => {
      specOf(c).description = 'Another description.';
      fieldOf(c, 'size').description = 'How many.';
    }),
    refusedBy: [],
  },
  {
    name: 'optional field added',
    previous: widgets(),
    next: widgets((c) => {
      (specOf(c).properties as Record<string, unknown>).color = { type: 'string' };
    }),
    refusedBy: [],
  },
  {
    name: 'enum value added',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'mode').enum = ['fast', 'safe', 'slow'];
    }),
    refusedBy: [],
  },
  {
    name: 'bounds loosened and maximum dropped',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'size').minimum = 0;
      delete fieldOf(c, 'size').maximum;
      fieldOf(c, 'tags').maxItems = 50;
    }),
    refusedBy: [],
  },
  {
    name: 'scope changed',
    previous: widgets(),
    next: widgets((c) => {
      c.spec.scope = 'Cluster';
    }),
    refusedBy: ['crd:scope'],
  },
  {
    name: 'stored version removed',
    previous: twoVersions(),
    next: widgets(),
    refusedBy: ['crd:storedVersionRemoval'],
  },
  {
    name: 'served version removed, never stored',
    previous: twoVersions((c) => {
      c.spec.versions = [widgetVersion('v1alpha1', false), widgetVersion('v1', true)];
    }),
    next: widgets(),
    refusedBy: [],
  },
  {
    name: 'field removed',
    previous: widgets(),
    next: widgets((c) => {
      delete (specOf(c).properties as Record<string, unknown>).name;
    }),
    refusedBy: ['crd:existingFieldRemoval'],
  },
  {
    name: 'field removed beneath x-kubernetes-preserve-unknown-fields',
    previous: widgets(),
    next: widgets((c) => {
      delete fieldOf(c, 'extra').properties;
    }),
    refusedBy: ['crd:existingFieldRemoval'],
  },
  {
    name: 'type changed',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'size').type = 'number';
    }),
    refusedBy: ['same:type'],
  },
  {
    name: 'enum value removed',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'mode').enum = ['fast'];
    }),
    refusedBy: ['same:enum'],
  },
  {
    name: 'enum constraint added',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'name').enum = ['a', 'b'];
    }),
    refusedBy: ['same:enum'],
  },
  {
    name: 'required field added to an existing object',
    previous: widgets(),
    next: widgets((c) => {
      specOf(c).required = ['size', 'mode'];
    }),
    refusedBy: ['same:required'],
  },
  {
    name: 'default changed',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'size').default = 5;
    }),
    refusedBy: ['same:default'],
  },
  {
    name: 'default added',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'mode').default = 'safe';
    }),
    refusedBy: ['same:default'],
  },
  {
    name: 'default removed',
    previous: widgets(),
    next: widgets((c) => {
      delete fieldOf(c, 'size').default;
    }),
    refusedBy: ['same:default'],
  },
  {
    name: 'maximum decreased, maxItems decreased, minLength added',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'size').maximum = 5;
      fieldOf(c, 'tags').maxItems = 3;
      fieldOf(c, 'name').minLength = 2;
    }),
    refusedBy: ['same:maximum', 'same:maxItems', 'same:minLength'],
  },
  {
    name: 'minimum increased, maxProperties added',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'size').minimum = 2;
      fieldOf(c, 'labels').maxProperties = 8;
    }),
    refusedBy: ['same:minimum', 'same:maxProperties'],
  },
  {
    name: 'pattern changed',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'name').pattern = '^[a-z0-9]+$';
    }),
    refusedBy: ['same:pattern'],
  },
  {
    name: 'pattern removed',
    previous: widgets(),
    next: widgets((c) => {
      delete fieldOf(c, 'name').pattern;
    }),
    refusedBy: ['same:pattern'],
  },
  {
    name: 'nullable added',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'mode').nullable = true;
    }),
    refusedBy: ['same:nullable'],
  },
  {
    name: 'oneOf branch added',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'shape').oneOf = [
        { required: ['circle'] },
        { required: ['square'] },
        { required: ['star'] },
      ];
    }),
    // The new branch is also a new node of the schema (shape.oneOf[2]), which crdify does not compare.
    refusedBy: ['same:oneOf'],
  },
  {
    name: 'oneOf branch removed',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'shape').oneOf = [{ required: ['circle'] }];
    }),
    refusedBy: ['same:oneOf', 'crd:existingFieldRemoval'],
  },
  {
    name: 'oneOf branch described',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'shape').oneOf = [{ required: ['circle'], description: 'Round.' }, { required: ['square'] }];
    }),
    refusedBy: [],
  },
  {
    name: 'format changed',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'size').format = 'int64';
    }),
    refusedBy: ['same:unhandled'],
  },
  {
    name: 'exclusiveMaximum added',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'size').exclusiveMaximum = true;
    }),
    refusedBy: ['same:unhandled'],
  },
  {
    name: 'integer field made int-or-string',
    previous: widgets(),
    next: widgets((c) => {
      (specOf(c).properties as Record<string, unknown>).size = {
        'x-kubernetes-int-or-string': true,
        anyOf: [{ type: 'integer' }, { type: 'string' }],
        default: 3,
      };
    }),
    refusedBy: ['same:type', 'same:unhandled'],
  },
  {
    name: 'additionalProperties value type changed',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'labels').additionalProperties = { type: 'integer' };
    }),
    // crdify compares the map's node with its additionalProperties schema inside, and that schema apart.
    refusedBy: ['same:type', 'same:unhandled'],
  },
  {
    name: 'anyOf branch of an int-or-string field removed',
    previous: widgets(),
    next: widgets((c) => {
      fieldOf(c, 'port').anyOf = [{ type: 'integer' }];
    }),
    refusedBy: ['same:unhandled', 'crd:existingFieldRemoval'],
  },
  {
    name: 'x-kubernetes-validations rule added',
    previous: widgets(),
    next: widgets((c) => {
      specOf(c)['x-kubernetes-validations'] = [{ rule: 'self.size < 8', message: 'too big' }];
    }),
    refusedBy: ['same:unhandled'],
  },
  {
    name: 'served versions differ without a conversion webhook',
    previous: widgets(),
    next: twoVersions((c) => {
      c.spec.versions = [widgetVersion('v1alpha1', false), widgetVersion('v1', true)];
      fieldOf(c, 'size', 'v1alpha1').type = 'string';
      fieldOf(c, 'mode', 'v1alpha1').enum = ['fast', 'safe', 'turbo'];
    }),
    refusedBy: ['served:type', 'served:enum'],
  },
  {
    name: 'served versions differ with a conversion webhook',
    previous: widgets(),
    next: twoVersions((c) => {
      c.spec.versions = [widgetVersion('v1alpha1', false), widgetVersion('v1', true)];
      c.spec.conversion = webhook;
      fieldOf(c, 'size', 'v1alpha1').type = 'string';
    }),
    refusedBy: [],
  },
  {
    name: 'served versions differ as they already did',
    previous: twoVersions((c) => {
      fieldOf(c, 'size', 'v1').type = 'string';
    }),
    next: twoVersions((c) => {
      fieldOf(c, 'size', 'v1').type = 'string';
      specOf(c, 'v1').description = 'Reworded.';
    }),
    refusedBy: [],
  },
  {
    name: 'newer served version lacks a field, no conversion webhook',
    previous: widgets(),
    next: twoVersions((c) => {
      c.spec.versions = [widgetVersion('v1alpha1', false), widgetVersion('v1', true)];
      delete (specOf(c, 'v1').properties as Record<string, unknown>).tags;
    }),
    refusedBy: ['served:existingFieldRemoval', 'crd:existingFieldRemoval'],
  },
  {
    name: 'conversion webhook dropped, versions alike',
    previous: twoVersions((c) => {
      c.spec.conversion = webhook;
    }),
    next: twoVersions(),
    refusedBy: [],
  },
  {
    name: 'new spec schema beside unchanged ones',
    previous: widgets(),
    next: widgets((c) => {
      specOf(c).properties = {
        ...(widgetSpec().properties as object),
        nested: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } },
      };
    }),
    refusedBy: [],
  },
  { name: 'memcached 0.1.0 → 0.2.0', previous: memcached('0.1.0'), next: memcached('0.2.0'), refusedBy: [] },
  { name: 'memcached 0.2.0 → 0.3.0', previous: memcached('0.2.0'), next: memcached('0.3.0'), refusedBy: [] },
  { name: 'memcached 0.1.0 → 0.3.0', previous: memcached('0.1.0'), next: memcached('0.3.0'), refusedBy: [] },
  {
    name: 'memcached 0.3.0 → 0.2.0 (a downgrade)',
    previous: memcached('0.3.0'),
    next: memcached('0.2.0'),
    refusedBy: ['crd:storedVersionRemoval'],
  },
  {
    name: 'memcached 0.2.0 → 0.1.0 (a downgrade)',
    previous: memcached('0.2.0'),
    next: memcached('0.1.0'),
    refusedBy: ['crd:existingFieldRemoval'],
  },
  {
    name: 'redis 0.1.0 → 0.2.0',
    previous: redis('0.1.0'),
    next: redis('0.2.0'),
    // 0.2.0 drops two CEL rules of spec: looser, but a change OLM v1 does not classify.
    refusedBy: ['same:unhandled'],
  },
  {
    name: 'redis 0.2.0 → 0.1.0 (a downgrade)',
    previous: redis('0.2.0'),
    next: redis('0.1.0'),
    refusedBy: ['same:unhandled', 'crd:existingFieldRemoval'],
  },
];

/**
 * Every node location of a raw schema, as crdify names them (`^.spec.size`, `^.spec.tags.items`,
 * `^.spec.port.anyOf[0]`): the test's own walk, so that it does not trust the library for which fields exist.
 */
export function schemaLocations(schema: unknown, path = '^', into = new Set<string>()): Set<string> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return into;
  into.add(path);
  const s = schema as Record<string, unknown>;
  const each = (value: unknown, at: (key: string) => string) => {
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value)) schemaLocations(child, at(key), into);
  };
  if (Array.isArray(s.items)) each(s.items, (i) => `${path}.items[${i}]`);
  else schemaLocations(s.items, `${path}.items`, into);
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) each(s[keyword], (i) => `${path}.${keyword}[${i}]`);
  schemaLocations(s.not, `${path}.not`, into);
  each(s.properties, (name) => `${path}.${name}`);
  schemaLocations(s.additionalProperties, `${path}.additionalProperties`, into);
  each(s.patternProperties, (key) => `${path}.patternProperties[${key}]`);
  schemaLocations(s.additionalItems, `${path}.additionalItems`, into);
  each(s.definitions, (key) => `${path}.definitions[${key}]`);
  if (typeof s.dependencies === 'object' && s.dependencies !== null) {
    for (const [key, d] of Object.entries(s.dependencies)) {
      if (!Array.isArray(d)) schemaLocations(d, `${path}.dependencies[${key}]`, into);
    }
  }
  return into;
}
