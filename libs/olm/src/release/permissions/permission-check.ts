import type { ReleaseCheck } from '../gate/release-check.js';
import { permissionChangesOfEdge } from './permission-changes.js';

/** The permission family as the gate runs it: on every edge the release adds. */
export const permissionCheck: ReleaseCheck = { family: 'permission', edge: permissionChangesOfEdge };
