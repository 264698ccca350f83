import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from './cli-error.js';
import { kubectl } from './kubectl.js';

/** An operator's `config/default` (or another overlay), rendered by kustomize, with the manager image set. */
export function renderOverlay(operatorDir: string, image: string | undefined, overlay = 'default'): string {
  const dir = join(operatorDir, 'config', overlay);
  if (!existsSync(dir)) throw new CliError('OPKIT_DEPLOY_OVERLAY', `${dir} does not exist`);
  const text = kubectl(['kustomize', dir]);
  return image ? text.replaceAll('image: controller:latest', `image: ${image}`) : text;
}
