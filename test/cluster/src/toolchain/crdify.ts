import { join } from 'node:path';
import { ensureComponents } from './build.js';
import { crdifyRecipe } from './recipes.js';

/** The path of a cached crdify binary, building it from its Go module on first use. */
export async function crdifyBinary(onProgress?: (line: string) => void): Promise<string> {
  const built = await ensureComponents([crdifyRecipe], { onProgress });
  const component = built.crdify;
  if (component === undefined) throw new Error('the crdify component was not built');
  return join(component.dir, 'crdify');
}
