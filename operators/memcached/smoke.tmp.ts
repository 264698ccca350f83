import { startTestEnvironment } from '@opkit/test-cluster/envtest';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeRest } from '../../test/cluster/src/kube/rest.ts';
import { readdirSync, existsSync } from 'node:fs';
const t = Date.now();
let stopPoll = false;
(async () => {
  for (;;) { if (stopPoll) return;
    const d = readdirSync('/tmp').filter(n => n.startsWith('opkit-envtest-')).map(n => `/tmp/${n}/admin.kubeconfig`).filter(existsSync).at(-1);
    if (d) { try { const kc = new KubeConfig(); kc.loadFromFile(d); const r = new KubeRest(kc);
      const x = await r.getText('/readyz?verbose'); console.error(Date.now()-t, x.status, x.body.split('\n').filter(l=>l.includes('[-]')).join(' ')); r.close(); } catch (e) { console.error(Date.now()-t, 'err', (e as Error).message.slice(0,60)); } }
    await new Promise(r => setTimeout(r, 300)); }
})();
const env = await startTestEnvironment({ crdDirectoryPaths: [], webhookConfigPaths: [], onProgress: (l) => console.error(`${Date.now() - t}ms ${l}`) });
stopPoll = true;
const t2 = Date.now();
await env.stop();
console.error('stop took', Date.now() - t2);
