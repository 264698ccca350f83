// `opkit deploy` and `opkit undeploy` for an operator project in the kubebuilder layout (what `make deploy`
// and `make undeploy` do): one module per verb here; their work in src/deploy.ts and src/undeploy.ts, the
// overlay they share in src/overlay.ts.
import type { Command } from 'commander';
import { registerDeploy } from './deploy.js';
import { registerUndeploy } from './undeploy.js';

export function registerDeployCommands(program: Command): void {
  registerDeploy(program);
  registerUndeploy(program);
}
