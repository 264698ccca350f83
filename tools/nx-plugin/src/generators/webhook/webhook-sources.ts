// The webhook generator's TypeScript, built from pieces (the defaulter, the validator, their tests) so that a
// kind's files can be written whole or, when the kind has some webhooks already, get only the missing pieces.
import type { KindNames } from '../../names.js';

/** Which admission webhooks a piece of code is for. */
export interface AdmissionWebhooks {
  readonly defaulting: boolean;
  readonly validation: boolean;
}

/** The names the pieces use: the kind's, and the project that regenerates config/ from them. */
export type WebhookNames = KindNames & { readonly project: string };

/** What a piece imports from `@opkit/controller-runtime/webhook`. */
export const RUNTIME_WEBHOOK = '@opkit/controller-runtime/webhook';
const defaulterImports = ['type Defaulter'];
const validatorImports = ['type FieldProblem', 'invalidObject', 'type Validator', 'type Warnings'];

export function runtimeImports(w: AdmissionWebhooks): string[] {
  return [...(w.defaulting ? defaulterImports : []), ...(w.validation ? validatorImports : [])];
}

export function defaulterName(n: WebhookNames): string {
  return `${n.propertyName}Defaulter`;
}

export function validatorName(n: WebhookNames): string {
  return `${n.propertyName}Validator`;
}

export function declarationName(n: WebhookNames): string {
  return `${n.propertyName}Webhooks`;
}

function defaulterSource(n: WebhookNames): string {
  const v = n.propertyName;
  return `/** Sets what the schema cannot default: a message naming the ${n.kind}, when none is given. */
export const ${defaulterName(n)}: Defaulter<${n.kind}> = (${v}) => {
  if (!${v}.spec.message) ${v}.spec.message = \`Hello from \${${v}.metadata.name}\`;
};
`;
}

function validatorSource(n: WebhookNames): string {
  const v = n.propertyName;
  return `/** What the schema cannot say about a ${n.kind}: replace it with your kind's rules across fields. */
function ${v}Problems(${v}: ${n.kind}): FieldProblem[] {
  const message = ${v}.spec.message ?? '';
  return message.includes('\\n')
    ? [{ field: 'spec.message', value: message, message: 'must be a single line' }]
    : [];
}

/** Refuses a ${n.kind} with problems, naming the fields; warns when a change rewrites its ConfigMap. */
export const ${validatorName(n)}: Validator<${n.kind}> = {
  validateCreate(${v}): Warnings {
    const found = ${v}Problems(${v});
    if (found.length > 0) throw invalidObject(${v}, found);
    return [];
  },
  validateUpdate(old, ${v}): Warnings {
    const found = ${v}Problems(${v});
    if (found.length > 0) throw invalidObject(${v}, found);
    return old.spec.message !== ${v}.spec.message ? ['changing spec.message rewrites the ConfigMap'] : [];
  },
};
`;
}

/** Each admission webhook's code, and its member of the kind's declaration (`defaulter: …`). */
export function admissionPieces(
  n: WebhookNames,
  w: AdmissionWebhooks,
): { readonly member: string; readonly text: string; readonly code: string }[] {
  return [
    ...(w.defaulting
      ? [{ member: 'defaulter', text: `defaulter: ${defaulterName(n)}`, code: defaulterSource(n) }]
      : []),
    ...(w.validation
      ? [{ member: 'validator', text: `validator: ${validatorName(n)}`, code: validatorSource(n) }]
      : []),
  ];
}

/**
 * `src/api/<hub>/<kind>-webhooks.ts`: the kind's webhooks in one declaration, with the admission webhooks
 * asked for and the conversion to and from `spokes` (none: no conversion).
 */
export function webhooksModule(
  n: WebhookNames,
  w: AdmissionWebhooks & { readonly hub: string; readonly spokes: readonly string[] },
): string {
  const imports = [...runtimeImports(w), 'type KindWebhooks'].sort(byName);
  const members = [
    `type: ${n.constantName}`,
    `plural: '${n.plural}'`,
    `schema: validate${n.kind}`,
    ...admissionPieces(n, w).map((p) => p.text),
    ...(w.spokes.length > 0
      ? [`conversion: { hub: '${w.hub}', spokes: { ${w.spokes.map((s) => `${s}: ${s}Spoke`).join(', ')} } }`]
      : []),
  ];
  return [
    `import { ${imports.join(', ')} } from '${RUNTIME_WEBHOOK}';`,
    ...w.spokes.map((s) => `import { ${s}Spoke } from '../${s}/${n.fileName}-conversion.js';`),
    `import { ${n.constantName}, type ${n.kind}, validate${n.kind} } from './${n.fileName}.js';`,
    '',
    ...admissionPieces(n, w).map((p) => p.code),
    `/**
 * The ${n.kind} webhooks in one declaration: the operator registers it (src/api/index.ts) and
 * \`nx run ${n.project}:manifests\` generates config/webhook from it.
 */
export const ${declarationName(n)}: KindWebhooks<${n.kind}> = {
${members.map((m) => `  ${m},\n`).join('')}};
`,
  ].join('\n');
}

/** Import specifiers in Biome's order: by name, `type` ignored. */
function byName(a: string, b: string): number {
  const key = (s: string) => s.replace(/^type /, '');
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

/** The unit tests' `it` blocks for each webhook. */
export function unitCases(n: WebhookNames, w: AdmissionWebhooks): string[] {
  const v = n.propertyName;
  return [
    ...(w.defaulting
      ? [
          `  it('default an empty message to one naming the ${n.kind}, and keep a given one', async () => {
    const empty = ${v}({ message: '' });
    await ${defaulterName(n)}(empty, request);
    expect(empty.spec.message).toBe('Hello from sample');
    const given = ${v}({ message: 'mine' });
    await ${defaulterName(n)}(given, request);
    expect(given.spec.message).toBe('mine');
  });
`,
        ]
      : []),
    ...(w.validation
      ? [
          `  it('refuse a message of several lines, naming the field, and warn when an update changes it', async () => {
    expect(() => ${validatorName(n)}.validateCreate?.(${v}({ message: 'a\\nb' }), request)).toThrow(
      /spec\\.message: Invalid value: "a\\\\nb": must be a single line/,
    );
    expect(await ${validatorName(n)}.validateCreate?.(${v}({ message: 'a' }), request)).toEqual([]);
    expect(
      await ${validatorName(n)}.validateUpdate?.(${v}({ message: 'a' }), ${v}({ message: 'b' }), request),
    ).toEqual(['changing spec.message rewrites the ConfigMap']);
  });
`,
        ]
      : []),
  ];
}

/** The title of the unit tests' `describe`, where later webhooks add their cases. */
export const unitSuite = (n: WebhookNames) => `the ${n.kind} webhooks`;

/** The names a unit test file imports from the webhooks module. */
export function unitImports(n: WebhookNames, w: AdmissionWebhooks): string[] {
  return [...(w.defaulting ? [defaulterName(n)] : []), ...(w.validation ? [validatorName(n)] : [])];
}

/** `src/api/<hub>/<kind>-webhooks.spec.ts`: the admission webhooks' rules on their own. */
export function unitSpec(n: WebhookNames, w: AdmissionWebhooks): string {
  const v = n.propertyName;
  return `import type { AdmissionRequest } from '${RUNTIME_WEBHOOK}';
import { describe, expect, it } from 'vitest';
import { ${n.constantName}, type ${n.kind} } from './${n.fileName}.js';
import { ${unitImports(n, w).join(', ')} } from './${n.fileName}-webhooks.js';

// The webhooks' rules on their own; test/${n.fileName}-webhooks.spec.ts calls them through the API server.

const ${v} = (spec: ${n.kind}['spec']): ${n.kind} => ({
  ...${n.constantName},
  metadata: { name: 'sample', namespace: 'default' },
  spec,
});
// The rules here do not read the admission request.
const request = {} as AdmissionRequest<${n.kind}>;

describe('${unitSuite(n)}', () => {
${unitCases(n, w).join('\n')}});
`;
}

/** The end-to-end tests' `it` blocks for each webhook. */
export function clusterCases(n: WebhookNames, w: AdmissionWebhooks): string[] {
  const v = n.propertyName;
  return [
    ...(w.defaulting
      ? [
          `  it('default the message of a ${n.kind} created without one', async () => {
    const created = await operator.manager().apiClient.create(${v}('defaulted', {}));
    expect(created.spec.message).toBe('Hello from defaulted');
  });
`,
        ]
      : []),
    ...(w.validation
      ? [
          `  it('refuse a message of several lines, naming the field', async () => {
    await expect(operator.manager().apiClient.create(${v}('refused', { message: 'one\\ntwo' }))).rejects.toThrow(
      /denied the request: .*spec\\.message: Invalid value: "one\\\\ntwo": must be a single line/,
    );
  });
`,
        ]
      : []),
  ];
}

/** The title of the end-to-end tests' `describe`. */
export const clusterSuite = (n: WebhookNames) => `the ${n.kind} webhooks on a cluster`;

/** `test/<kind>-webhooks.spec.ts`: the admission webhooks through the API server. */
export function clusterSpec(n: WebhookNames & { readonly className: string }, w: AdmissionWebhooks): string {
  const v = n.propertyName;
  return `// The ${n.kind} webhooks through the API server: the operator serves them in this process, on a loopback port
// with a self-signed certificate, where in a cluster its Service and a certificate from \`opkit deploy\` or OLM
// stand.
import { createLogger } from '@opkit/controller-runtime';
import { selfSignedCertificate } from '@opkit/controller-runtime/serving';
import { webhookConfigurations } from '@opkit/controller-tools/webhook';
import { testKubeConfig, useOperator, useTestNamespace } from '@opkit/test-cluster/vitest';
import { describe, expect, it } from 'vitest';
import { ${n.constantName}, type ${n.kind}, apis, webhooks } from '../src/api/index.js';
import { create${n.className}Operator } from '../src/operator.js';

const namespace = useTestNamespace({ prefix: '${n.lower}-webhooks' });
// Each test begins once the manager's webhook server listens.
const operator = useOperator({
  webhookServer: { certificate: selfSignedCertificate },
  crds: apis.map((api) => api.crd),
  webhookConfigurations: ({ clientConfig }) => Object.values(webhookConfigurations(webhooks, clientConfig)),
  namespace: () => namespace.name,
  create: (ns, { webhookServer }) =>
    create${n.className}Operator({
      kubeConfig: testKubeConfig(),
      namespaces: [ns],
      namespace: ns,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logger: createLogger({ level: 'error' }),
      env: {},
      managerOptions: { webhook: webhookServer },
    }),
});

const ${v} = (name: string, spec: ${n.kind}['spec']): ${n.kind} => ({
  ...${n.constantName},
  metadata: { name, namespace: namespace.name },
  spec,
});

describe('${clusterSuite(n)}', () => {
${clusterCases(n, w).join('\n')}});
`;
}
