import type { Tree } from '@nx/devkit';
import { isMap, isSeq, parseDocument } from 'yaml';

/**
 * The deployed manager serves webhooks from now on: the scaffold's `ENABLE_WEBHOOKS=false` goes from its
 * Deployment (comments and the rest of the file stay as written).
 */
export function enableWebhooksInManager(tree: Tree, path: string): void {
  const text = tree.read(path, 'utf-8');
  if (text === null) throw new Error(`${path}: missing (the manager Deployment)`);
  const docs = text.split(/^---\n/m).map((part) => parseDocument(part));
  for (const doc of docs) {
    if (doc.get('kind') !== 'Deployment') continue;
    const containers = doc.getIn(['spec', 'template', 'spec', 'containers']);
    if (!isSeq(containers)) continue;
    for (const container of containers.items) {
      if (!isMap(container)) continue;
      const env = container.get('env');
      if (!isSeq(env)) continue;
      env.items = env.items.filter((item) => !(isMap(item) && item.get('name') === 'ENABLE_WEBHOOKS'));
    }
  }
  tree.write(path, docs.map((doc) => doc.toString({ lineWidth: 0 })).join('---\n'));
}
