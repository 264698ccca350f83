// All the structure figures of the workspace at once: public names, folder cycles and package edges.
import {
  type FolderGraph,
  folderGraph,
  type PackageGraph,
  packageGraph,
  scanPackage,
} from './import-graphs.js';
import { type PackageNames, publicNames } from './public-names.js';
import { findWorkspaceRoot, workspacePackages } from './workspace.js';

/** The folders holding the product's packages; test/ packages appear only in the package graph. */
export const PRODUCT_FOLDERS = ['libs', 'tools', 'operators'] as const;

export interface Figures {
  /** Per product package; empty unless asked for (it needs a TypeScript program, which takes a while). */
  readonly publicNames: readonly PackageNames[];
  /** Per product package. */
  readonly folderGraphs: readonly FolderGraph[];
  /** Over every workspace package. */
  readonly packageGraph: PackageGraph;
}

export function collectFigures(options: { root?: string; publicNames?: boolean } = {}): Figures {
  const root = options.root ?? findWorkspaceRoot();
  const packages = workspacePackages(root);
  const product = packages.filter((pkg) =>
    PRODUCT_FOLDERS.some((folder) => pkg.dir.startsWith(`${folder}/`)),
  );
  const scanned = packages.map((pkg) => scanPackage(root, pkg));
  return {
    publicNames: options.publicNames ? publicNames(root, product) : [],
    folderGraphs: scanned
      .filter((pkg) => product.some((productPackage) => productPackage.dir === pkg.dir))
      .map((pkg) => folderGraph(root, pkg)),
    packageGraph: packageGraph(scanned),
  };
}
