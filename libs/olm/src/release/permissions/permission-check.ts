import { permissionChangesOfEdge } from './permission-changes.js';

/**
 * The permission family as the gate runs it, on every edge the release adds: a `ReleaseCheck` by its shape,
 * so that the family does not depend on the gate that lists it (`gate/default-checks.ts`).
 */
export const permissionCheck = { family: 'permission', edge: permissionChangesOfEdge } as const;
