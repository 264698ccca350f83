import { KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';
import type { TestEnvironment, TestEnvironmentWebhook } from './environment.js';

/** What the `envtest` project's global setup hands every test file: the environment without its `stop`. */
export interface ProvidedTestEnvironment {
  readonly kubeconfigPath: string;
  readonly usesExistingCluster: boolean;
  readonly webhook: TestEnvironmentWebhook;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test environment of this run of the `envtest` project. */
    opkitEnvtest: ProvidedTestEnvironment;
  }
}

/** The run's environment as a test file sees it: the global setup stops it after the last file. */
export type SharedTestEnvironment = Omit<TestEnvironment, 'stop'>;

let shared: SharedTestEnvironment | undefined;

/**
 * The test environment the `envtest` project's global setup started for this run (one for all files): its
 * kubeconfig, and the port and certificate directory the operator's webhook server must use.
 */
export function envtest(): SharedTestEnvironment {
  if (!shared) {
    const provided = inject('opkitEnvtest');
    if (!provided) {
      throw new Error(
        'envtest(): no test environment: run the file in the `envtest` project of opkitVitestConfig',
      );
    }
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(provided.kubeconfigPath);
    shared = { ...provided, kubeConfig };
  }
  return shared;
}
