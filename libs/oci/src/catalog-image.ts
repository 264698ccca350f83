import { isDirectory, type OlmImageOptions } from './bundle-image.js';
import { InputInvalidError } from './errors.js';
import { buildImage, type OciImage } from './image.js';
import { layerFromDirectory } from './layer.js';

/** Label telling opm and OLM where a file-based catalog lives inside the image. */
export const CATALOG_CONFIGS_LABEL = 'operators.operatorframework.io.index.configs.v1';

/** Directory of the image the catalog is copied to. */
export const CATALOG_CONFIGS_DIR = '/configs';

/** Options of {@link catalogImage}. */
export interface CatalogImageOptions extends OlmImageOptions {
  /** Extra labels (like `opm generate dockerfile -l`); the configs label always wins. */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * Builds a file-based catalog image: one layer with the tree of `configsDir` under `/configs/…` (hidden files
 * such as `.indexignore` included) and the label `operators.operatorframework.io.index.configs.v1=/configs`.
 *
 * The image has no `opm` binary and no pre-built serve cache (it is `FROM scratch`); on a cluster it is served
 * through a CatalogSource with `spec.grpcPodConfig.extractContent` (`catalogDir: /configs`), or rendered by
 * `opm render <image>`.
 *
 * @throws InputInvalidError when `configsDir` is not a directory.
 */
export async function catalogImage(configsDir: string, options: CatalogImageOptions = {}): Promise<OciImage> {
  if (!(await isDirectory(configsDir))) {
    throw new InputInvalidError(`catalog directory ${configsDir} does not exist or is not a directory`);
  }
  const layer = await layerFromDirectory(configsDir, {
    prefix: CATALOG_CONFIGS_DIR,
    mtime: options.mtime ?? 0,
    ...(options.compressionLevel === undefined ? {} : { compressionLevel: options.compressionLevel }),
  });
  return buildImage([layer], {
    labels: { ...options.labels, [CATALOG_CONFIGS_LABEL]: CATALOG_CONFIGS_DIR },
    created: options.mtime ?? 0,
    createdBy: [`COPY . ${CATALOG_CONFIGS_DIR}/ # @opkit/oci catalog`],
    ...(options.architecture === undefined ? {} : { architecture: options.architecture }),
    ...(options.os === undefined ? {} : { os: options.os }),
  });
}
