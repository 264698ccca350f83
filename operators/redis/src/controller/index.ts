// The project's controllers and the RBAC rules they need; `nx g @opkit/nx:api` rewrites this file when it
// adds a kind.
import type { Manager, OperatorOptions } from '@opkit/controller-runtime';
import type { ResourcePolicyRule } from '@opkit/controller-runtime/rbac';
import { redisClusterControllerRbac, setupRedisClusterController } from './redis-cluster-controller.js';

export * from './redis-cluster-controller.js';

/** Sets up every controller of the project on the manager. */
export function setupControllers(manager: Manager, options: OperatorOptions = {}): void {
  setupRedisClusterController(manager, options);
}

/** What the controllers do with the API: config/rbac/role.yaml. */
export const controllerRbac: readonly ResourcePolicyRule[] = [...redisClusterControllerRbac];
