import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { KubeRest } from '../kube/rest.js';
import { RBAC_DENIED, testKubeConfig } from './index.js';
import { type DeployedOperator, deployOperator } from './operator-deploy.js';

const run = promisify(execFile);

/** What an operator's own part of the deploy test is given: its deployed manager and a fresh namespace. */
export interface DeployedOperatorContext {
  readonly rest: KubeRest;
  readonly operator: DeployedOperator;
  /** A namespace created for the operator's custom resources, deleted after the test. */
  readonly namespace: string;
}

/** The facts of one operator project that the shared project checks are run against. */
export interface OperatorProject {
  /** The operator's folder: `package.json`, `config/`. */
  readonly root: string;
  /** Its Nx project name; the operator is `<name>-operator`, deployed into `<name>-operator-system`. */
  readonly name: string;
  /** The manifests its sources generate, by path under `root` (`configManifests(manifestsSpec)`). */
  readonly generatedConfig: () => Record<string, string>;
  /** What is wrong with its samples (`sampleProblems(root, manifestsSpec)`); none: `[]`. */
  readonly sampleProblems: () => readonly string[];
  /** The manager's environment variable naming the operand image, e.g. `RELATED_IMAGE_MEMCACHED`. */
  readonly operandImageEnv: string;
  /** `Kind/name` of every object `kubectl kustomize config/default` renders, in any order. */
  readonly expectedKinds: readonly string[];
  readonly deployed: {
    /** What the deployed operator shows it does, as the test's title says it: "reconciles". */
    readonly does: string;
    /** A metric the manager's `/metrics` serves once it has done so. */
    readonly metric: string;
    /** Drives the deployed operator through its custom resources and checks what it did. */
    readonly exercise: (context: DeployedOperatorContext) => Promise<void>;
  };
}

/**
 * Registers the checks every operator project shares: `config/` is what the sources generate, the `run`
 * target's operand image default is the deployed one, kustomize renders the kubebuilder set of objects, and
 * the operator deploys, works (`deployed.exercise`) without RBAC denials and serves metrics only to readers.
 * `ownChecks` registers the operator's own tests in the same suite, before the deploy test.
 */
export function describeOperatorProject(project: OperatorProject, ownChecks?: () => void): void {
  const { root, name } = project;
  describe('the project’s config/', () => {
    it('holds the manifests generated from the TypeScript sources, and valid samples', () => {
      for (const [path, text] of Object.entries(project.generatedConfig())) {
        expect(readFileSync(join(root, path), 'utf8'), `${path} is stale: run nx run ${name}:manifests`).toBe(
          text,
        );
      }
      expect(project.sampleProblems()).toEqual([]);
    });

    it(`runs locally (nx run ${name}:run) with the operand image the deployed manager is given`, () => {
      const env = project.operandImageEnv;
      const deployed = managerEnv(root).find((e) => e.name === env)?.value;
      expect(deployed).toMatch(/^docker\.io\/library\//);
      const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        nx: { targets: { run: { options: { command: string } } } };
      };
      // A default only: an image the user exports wins, and a deployed operator without one still says so.
      expect(pkg.nx.targets.run.options.command).toContain(`${env}="\${${env}:-${deployed}}"`);
    });

    it('renders with kustomize into the kubebuilder set of objects', async () => {
      const { stdout } = await run('kubectl', ['kustomize', join(root, 'config', 'default')]);
      const kinds = parseAllDocuments(stdout).map((d) => {
        const o = d.toJS() as { kind: string; metadata: { name: string } };
        return `${o.kind}/${o.metadata.name}`;
      });
      expect(kinds.sort()).toEqual([...project.expectedKinds].sort());
      // No RBAC rule grants a wildcard.
      expect(stdout).not.toMatch(/- ['"]?\*['"]?$/m);
    });

    ownChecks?.();

    it(`deploys its image to the cluster: the manager pod runs it, ${project.deployed.does}, and undeploy removes everything`, async () => {
      const rest = new KubeRest(testKubeConfig());
      const operator = await deployOperator({
        rest,
        kubeconfig: inject('opkitKubeconfig'),
        registry: inject('opkitRegistry'),
        operatorDir: root,
        repository: `${name}-operator`,
        namespace: `${name}-operator-system`,
      });
      expect(operator.pod.image).toBe(operator.image);
      expect(operator.pod.imageID).toBe(`${operator.image.replace(/:dev$/, '')}@${operator.digest}`);

      // In the cluster, with its ServiceAccount.
      const namespace = `deployed-${Date.now().toString(36)}`;
      await rest.request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
      });
      await project.deployed.exercise({ rest, operator, namespace });

      expect(await operator.log()).not.toMatch(RBAC_DENIED);
      // Metrics over HTTPS through the metrics Service, only to a caller allowed to get /metrics.
      expect((await operator.metrics()).status).toBe(401);
      expect(
        (await operator.metrics(await operator.scraperToken('stranger', { reader: false }))).status,
      ).toBe(403);
      const scraped = await operator.metrics(await operator.scraperToken('scraper', { reader: true }));
      expect(scraped.status).toBe(200);
      expect(scraped.body).toContain(project.deployed.metric);
      await rest.request('DELETE', `/api/v1/namespaces/${namespace}`);

      await operator.undeploy();
      rest.close();
    });
  });
}

/** The environment of the manager container of the Deployment in `config/manager/manager.yaml`. */
function managerEnv(root: string): readonly { name: string; value?: string }[] {
  const manager = parseAllDocuments(readFileSync(join(root, 'config/manager/manager.yaml'), 'utf8'))
    .map((d) => d.toJS() as { kind?: string })
    .find((o) => o.kind === 'Deployment') as {
    spec: { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } };
  };
  return manager.spec.template.spec.containers[0]?.env ?? [];
}
