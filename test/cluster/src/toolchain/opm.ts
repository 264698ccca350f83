import { join } from 'node:path';
import { ensureComponents } from './build.js';
import { opmRecipe } from './recipes.js';

/** The path of a cached opm binary, building it from its Go module on first use. */
export async function opmBinary(onProgress?: (line: string) => void): Promise<string> {
  const built = await ensureComponents([opmRecipe], { onProgress });
  return join(built.opm!.dir, 'opm');
}
