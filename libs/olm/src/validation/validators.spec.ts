import { describe, expect, it } from 'vitest';
import { loadBundle } from '../bundle/load.js';
import { generateCsv } from '../csv/generate.js';
import { demoBaseCsv, demoOperatorObjects } from '../csv/testing.js';
import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import type { Manifest } from '../manifest/manifest.js';
import { validateBundle } from './bundle.js';
import { type ValidationBundle, validationBundleOf } from './bundle-model.js';
import { validateCrd } from './crd.js';
import { validateCsv } from './csv.js';
import { validateDeprecatedApis } from './deprecated-apis.js';
import { validateGoodPractices } from './good-practices.js';
import { validateObjects } from './object.js';
import {
  validateCapabilities,
  validateCategories,
  validateOperatorHub,
  validateOperatorHubV2,
} from './operatorhub.js';
import { selectOptionalValidators } from './optional-validators.js';
import { formatValidationError, type ManifestResult } from './result.js';
import { validateUpgradeEdges } from './upgrade-edges.js';
import { validateBundleContent } from './validate-bundle-dir.js';

const texts = (result: ManifestResult) => result.errors.map(formatValidationError);

function demoBundle(
  edit: (csv: ClusterServiceVersion, objects: Manifest[]) => void = () => {},
): ValidationBundle {
  const { csv, manifests } = generateCsv({
    base: demoBaseCsv(),
    objects: demoOperatorObjects(),
    version: '0.1.0',
  });
  edit(csv, manifests);
  return {
    name: csv.metadata.name!,
    packageName: 'demo-operator',
    channels: ['alpha'],
    defaultChannel: 'alpha',
    csv,
    objects: [csv, ...manifests],
    compressedSize: 1000,
    size: 4000,
  };
}

describe('CSV validator', () => {
  it('reports names, install modes, minKubeVersion, required fields, annotation case and version/kind', () => {
    const broken = structuredClone(demoBundle().csv!);
    broken.metadata.name = 'Demo.v1';
    broken.spec.replaces = 'bad_name';
    broken.spec.installModes = [{ type: 'AllNamespaces', supported: false }];
    broken.spec.minKubeVersion = 'v1.28';
    delete (broken.spec as { displayName?: string }).displayName;
    broken.metadata.annotations!['olm.targetnamespaces'] = 'x';
    broken.kind = '';
    expect(texts(validateCsv(broken))).toStrictEqual([
      expect.stringMatching(
        /^Error: Value : \(Demo\.v1\) metadata\.name "Demo\.v1" is invalid: a lowercase RFC 1123 subdomain/,
      ),
      expect.stringMatching(
        /^Error: Value : \(Demo\.v1\) spec\.replaces "bad_name" is invalid: a lowercase RFC 1123 subdomain/,
      ),
      'Warning: Value demo.example.com/v1alpha1, Kind=Gizmo: provided API should have an example annotation',
      'Error: Value : (Demo.v1) none of InstallModeTypes are supported',
      'Error: Value : (Demo.v1) csv.Spec.MinKubeVersion has an invalid value: v1.28',
      'Error: Field Spec.DisplayName, Value field: required field missing',
      'Error: Value Demo.v1: provided annotation olm.targetnamespaces uses wrong case and should be olm.targetNamespaces instead',
      "Error: Value : (Demo.v1) 'kind' is missing",
    ]);
  });

  it('checks examples against the provided APIs', () => {
    const csv = demoBundle().csv!;
    csv.metadata.annotations!['alm-examples'] = JSON.stringify([
      { apiVersion: 'other.example.com/v1', kind: 'Other' },
    ]);
    expect(texts(validateCsv(csv))).toStrictEqual([
      'Error: Value other.example.com/v1, Kind=Other: example must have a provided API',
      'Warning: Value demo.example.com/v1, Kind=Gizmo: provided API should have an example annotation',
      'Warning: Value demo.example.com/v1alpha1, Kind=Gizmo: provided API should have an example annotation',
    ]);
    delete csv.metadata.annotations;
    expect(texts(validateCsv(csv))).toStrictEqual([
      'Warning: Value : (demo-operator.v0.1.0) annotations not found',
    ]);
  });
});

describe('bundle validator', () => {
  it('reports owned CRDs missing from the bundle, CRDs the CSV does not own and service accounts', () => {
    const bundle = demoBundle((csv, objects) => {
      csv.spec.customresourcedefinitions!.owned!.push({
        name: 'extras.demo.example.com',
        version: 'v1',
        kind: 'Extra',
      });
      objects.push(
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: 'stray.other.io' },
          spec: { group: 'other.io', names: { kind: 'Stray', plural: 'stray' }, versions: [{ name: 'v1' }] },
        },
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'demo-controller-manager' } },
      );
    });
    const result = validateBundle(bundle);
    expect(result.name).toBe('0.1.0');
    expect(texts(result)).toStrictEqual([
      'Error: Value demo.example.com/v1, Kind=Extra: owned CRD "demo.example.com/v1, Kind=Extra" not found in bundle "demo-operator.v0.1.0"',
      'Error: Value other.io/v1, Kind=Stray: CRD "other.io/v1, Kind=Stray" is present in bundle "demo-operator.v0.1.0" but not defined in CSV',
      expect.stringMatching(
        /^Error: Value demo-controller-manager: invalid service account found in bundle\. This service account demo-controller-manager/,
      ),
    ]);
  });

  it('checks the compressed size with 1000-based units', () => {
    expect(
      texts(validateBundle({ ...demoBundle(), compressedSize: 1_100_000, size: 5_500_000 })),
    ).toStrictEqual([
      'Error: Value demo-operator.v0.1.0: maximum bundle compressed size with gzip size exceeded: size=~1.1 MB , max=1.0 MB. Bundle uncompressed size is 5.5 MB',
    ]);
    expect(texts(validateBundle({ ...demoBundle(), compressedSize: 0 }))).toStrictEqual([
      'Warning: Value demo-operator.v0.1.0: unable to check the bundle compressed size',
    ]);
  });

  it('checks related images and release naming', () => {
    const bundle = demoBundle((csv) => {
      csv.spec.relatedImages = [{ name: 'x', image: '' }];
      csv.spec.release = '2';
    });
    expect(texts(validateBundle(bundle))).toStrictEqual([
      'Error: Value demo-operator.v0.1.0: bundle name with release versioning "demo-operator.v0.1.0" does not match expected name "demo-operator-v0.1.0-2"',
      'Error: Value spec.relatedImages[0].image: relatedImages[0] has an empty image field',
    ]);
  });
});

describe('CRD validator', () => {
  const crd = (spec: Record<string, unknown>, name = 'gizmos.demo.example.com'): Manifest => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: 'demo.example.com',
      scope: 'Namespaced',
      names: { kind: 'Gizmo', plural: 'gizmos' },
      ...spec,
    },
  });

  it('passes a well-formed CRD with an unnamed result', () => {
    expect(
      validateCrd(
        crd({
          versions: [
            { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
          ],
        }),
      ),
    ).toStrictEqual({
      name: '',
      errors: [],
    });
  });

  it("reports Kubernetes' findings, dropping schema and status ones", () => {
    const result = validateCrd(
      crd(
        {
          scope: 'Global',
          versions: [
            { name: 'v1', served: true, storage: false },
            { name: 'v1', served: true, storage: false },
          ],
        },
        'wrong.demo.example.com',
      ),
    );
    expect(result.name).toBe('wrong.demo.example.com');
    expect(texts(result)).toStrictEqual([
      'Error: Field metadata.name, Value wrong.demo.example.com: metadata.name: Invalid value: "wrong.demo.example.com": must be spec.names.plural+"."+spec.group',
      'Error: Field spec.scope, Value Global: spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
      expect.stringMatching(/^Error: Field spec\.versions, Value .*: must contain unique version names$/),
      expect.stringMatching(
        /^Error: Field spec\.versions, Value .*: must have exactly one version marked as storage version$/,
      ),
    ]);
  });
});

describe('optional validators', () => {
  it('OperatorHub v2 checks metadata and removed APIs', () => {
    const bundle = demoBundle((csv) => {
      csv.spec.icon = [{ base64data: '', mediatype: 'image/bmp' }];
      csv.spec.provider = {};
      csv.spec.links = [{ name: 'x', url: 'not a url' }];
    });
    expect(texts(validateOperatorHubV2(bundle))).toStrictEqual([
      'Error: Value : (demo-operator.v0.1.0) csv.Spec.Provider.Name not specified',
      'Error: Value : (demo-operator.v0.1.0) csv.Spec.Links url not a url is invalid: parse "not a url": invalid URI for request',
      'Error: Value : (demo-operator.v0.1.0) csv.Spec.Icon elements should contain both data and mediatype',
      'Error: Value : (demo-operator.v0.1.0) csv.Spec.Icon image/bmp does not have a valid mediatype',
    ]);
  });

  it('the deprecated operatorhub validator adds capabilities, categories and a deprecation result', () => {
    const bundle = demoBundle((csv) => {
      csv.metadata.annotations!.capabilities = 'Everything';
      csv.metadata.annotations!.categories = 'Database,Gizmos';
    });
    const [result, deprecation] = validateOperatorHub(bundle);
    expect(texts(result!)).toStrictEqual([
      'Error: Value : (demo-operator.v0.1.0) csv.Metadata.Annotations.Capabilities "Everything" is not a valid capabilities level',
      'Error: Value : (demo-operator.v0.1.0) csv.Metadata.Annotations["categories"] value "Gizmos" is not in the set of standard categories',
    ]);
    expect(texts(deprecation!)).toStrictEqual([
      'Warning: Value : The "operatorhub" validator is deprecated; for equivalent validation use "operatorhub/v2", "standardcapabilities" and "standardcategories" validators',
    ]);
    expect(texts(validateCapabilities(bundle))).toHaveLength(1);
    expect(texts(validateCategories(bundle, ['Gizmos', 'Database']))).toStrictEqual([]);
  });

  it('deprecated APIs: warning below the removal version, error at it, with upstream message quirks', () => {
    const v1beta1 = (name: string): Manifest => ({
      apiVersion: 'apiextensions.k8s.io/v1beta1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
    });
    const pc: Manifest = {
      apiVersion: 'scheduling.k8s.io/v1beta1',
      kind: 'PriorityClass',
      metadata: { name: 'high' },
    };
    const bundle = demoBundle((csv, objects) => {
      csv.spec.minKubeVersion = '1.20.0';
      objects.push(v1beta1('a.x.io'), v1beta1('b.x.io'), pc);
    });
    const message =
      'this bundle is using APIs which were deprecated and removed in v1.22. More info: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-22. Migrate the API(s) for CRD: (["a.x.io" "b.x.io"]),PriorityClass: (["high"]),';
    expect(texts(validateDeprecatedApis(bundle))).toStrictEqual([
      `Warning: Value demo-operator.v0.1.0: ${message}`,
    ]);
    expect(texts(validateDeprecatedApis(bundle, { 'k8s-version': '1.22' }))).toStrictEqual([
      `Error: Value demo-operator.v0.1.0: ${message}`,
    ]);
    // minKubeVersion at or above the removal version makes it an error too.
    bundle.csv!.spec.minKubeVersion = '1.28.0';
    expect(texts(validateDeprecatedApis(bundle))).toStrictEqual([
      `Error: Value demo-operator.v0.1.0: ${message}`,
    ]);
    expect(texts(validateDeprecatedApis(demoBundle(), { 'k8s-version': 'latest' }))).toStrictEqual([
      'Error: Value demo-operator.v0.1.0: invalid value informed via the k8s key option : latest',
    ]);
  });

  it('good practices: requests, descriptions, channel names, CRD permissions, CSV name', () => {
    const bundle = demoBundle((csv) => {
      csv.spec.customresourcedefinitions!.owned![1]!.description = '';
      csv.spec.install.spec!.clusterPermissions![0]!.rules.push({
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['*'],
        verbs: ['patch'],
      });
      csv.metadata.name = 'demo';
    });
    expect(
      texts(validateGoodPractices({ ...bundle, channels: ['alpha', 'stable'], defaultChannel: 'stable' })),
    ).toStrictEqual([
      'Warning: Value demo: owned CRD "gizmos.demo.example.com" has an empty description',
      'Warning: Value demo: channel(s) ["alpha"] are not following the recommended naming convention: https://olm.operatorframework.io/docs/best-practices/channel-naming',
      expect.stringMatching(
        /^Warning: Value demo: CSV contains permissions to create CRD\. .*\. {2}Please, review/,
      ),
      'Warning: Value demo: csv.metadata.Name demo is not following the versioning convention (MAJOR.MINOR.PATCH e.g 0.0.1): https://semver.org/',
      'Warning: Value demo: csv.metadata.Name demo is not following the recommended naming convention: <operator-name>.v<semver> e.g. memcached-operator.v0.0.1',
    ]);
  });

  it('object checks: PDBs, priority classes, RBAC', () => {
    const results = validateObjects([
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'p' },
        spec: { minAvailable: '100%' },
      },
      {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: 'c' },
        globalDefault: true,
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'r' },
        rules: [{ apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['create'] }],
      },
    ]);
    expect(results.flatMap((r) => r.errors.map((e) => `${e.level}: ${e.detail}`))).toStrictEqual([
      'Error: minAvailable field cannot be set to 100%',
      'Error: globalDefault field cannot be set to true',
      'Warning: RBAC includes permission to create/update poddisruptionbudgets, which could impact cluster stability',
    ]);
  });

  it('opkit upgrade edges: replaces and skips naming the CSV itself, non-older replaces', () => {
    const bundle = demoBundle((csv) => {
      csv.spec.replaces = 'demo-operator.v0.2.0';
      csv.spec.skips = ['demo-operator.v0.1.0'];
    });
    expect(texts(validateUpgradeEdges(bundle))).toStrictEqual([
      'Error: Value demo-operator.v0.1.0: spec.replaces "demo-operator.v0.2.0" is not older than "demo-operator.v0.1.0"',
      'Error: Value demo-operator.v0.1.0: spec.skips contains the CSV itself ("demo-operator.v0.1.0")',
    ]);
  });

  it('selects validators by label as --select-optional does', () => {
    expect(selectOptionalValidators('suite=operatorframework').map((v) => v.name)).toStrictEqual([
      'operatorhubv2',
      'capabilities',
      'categories',
      'alpha-deprecated-apis',
      'good-practices',
    ]);
    expect(() => selectOptionalValidators('name=nope')).toThrow(
      'selector "name=nope" does not match any validator labels',
    );
  });
});

describe('validationBundleOf', () => {
  it('carries the package and channels of a loaded bundle to the validators', () => {
    const corpus = new URL('../../test/bundle/corpus/valid-memcached', import.meta.url).pathname;
    const bundle = validationBundleOf(loadBundle(corpus));
    expect([bundle.name, bundle.packageName, bundle.channels, bundle.defaultChannel]).toStrictEqual([
      'memcached-operator.v0.1.0',
      'memcached-operator',
      ['alpha'],
      'alpha',
    ]);
    expect(bundle.size).toBeGreaterThan(bundle.compressedSize);
    expect(texts(validateGoodPractices(bundle))).toStrictEqual([
      'Warning: Value memcached-operator.v0.1.0: channel(s) ["alpha"] are not following the recommended naming convention: https://olm.operatorframework.io/docs/best-practices/channel-naming',
    ]);
  });
});

describe('validateBundleContent', () => {
  it('merges per-object findings into the CSV result', () => {
    const bundle = demoBundle((_csv, objects) => {
      objects.push({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' } });
      objects.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'x' } });
    });
    const results = validateBundleContent(bundle);
    expect(results.map((r) => r.name)).toStrictEqual(['0.1.0', 'demo-operator.v0.1.0', '']);
    expect(texts(results[1]!).slice(-2)).toStrictEqual([
      'Error: Value batch/v1, Kind=Job: unsupported media type registry+v1 for bundle object',
      'Error: Value c: error validating object: metadata.namespace: Forbidden: not allowed on this type. &{map[apiVersion:v1 kind:ConfigMap metadata:map[name:c namespace:x]]}',
    ]);
  });
});
