import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A kwok stage of our own, beside the ones kwok ships: it does what a kubelet's status sync does after the node
 * lifecycle controller marked a pod not ready.
 *
 * When the API server is away longer than the node monitor's grace period (a restart on a busy machine), the
 * controller-manager sees every node's lease expire and sets the Ready condition of their pods to False. A real
 * kubelet, once it reaches the API server again, writes the pod's status as it knows it, Ready again. kwok's
 * own pod stages only make a Pending pod Ready once, so without this stage such pods stayed not ready for good,
 * their Deployments stuck, and a test blamed the operator. The stage matches only what that controller leaves
 * behind: a running pod whose containers are ready but which is not. (The status is a strategic merge patch:
 * the other conditions stay, `null` drops the controller's reason and message.)
 */
export const POD_READY_AGAIN_STAGE = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: opkit-pod-ready-again
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
      - key: .metadata.deletionTimestamp
        operator: DoesNotExist
      - key: .status.phase
        operator: In
        values: [Running]
      - key: '.status.conditions.[] | select( .type == "ContainersReady" ) | .status'
        operator: In
        values: ['True']
      - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
        operator: NotIn
        values: ['True']
  next:
    statusTemplate: |
      conditions:
        - lastTransitionTime: {{ Now | Quote }}
          status: "True"
          type: Ready
          reason: null
          message: null
`;

/** Writes the stage into the cluster's directory; returns the file to pass to kwok as one more `--config`. */
export function writeKwokStages(dir: string): string {
  const file = join(dir, 'kwok-pod-ready-again.yaml');
  writeFileSync(file, POD_READY_AGAIN_STAGE);
  return file;
}
