import { parseReference } from '@opkit/oci';
import { ActionError } from './errors.js';

/** Refuses an option value that is no image reference (`registry/repository[:tag][@digest]`), naming the flag. */
export function checkImageReference(flag: string, value: string): void {
  try {
    parseReference(value);
  } catch (error) {
    throw new ActionError(
      'OPKIT_ARGUMENT_INVALID',
      `${flag} ${JSON.stringify(value)}: ${(error as Error).message}`,
    );
  }
}
