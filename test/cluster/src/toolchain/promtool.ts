import { join } from 'node:path';
import { ensureComponents } from './build.js';
import { promtoolRecipe } from './recipes.js';

/** The path of a cached promtool binary, building it from its Go module on first use. */
export async function promtoolBinary(onProgress?: (line: string) => void): Promise<string> {
  const built = await ensureComponents([promtoolRecipe], { onProgress });
  const component = built.promtool;
  if (component === undefined) throw new Error('the promtool component was not built');
  return join(component.dir, 'promtool');
}
