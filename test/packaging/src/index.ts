// Measures the workspace's structure for the architecture figures and test: public names per package entry
// point, import cycles between the folders of a package's src/, and imports between packages.
export { collectFigures, type Figures, PRODUCT_FOLDERS } from './figures.js';
export type { FolderGraph, ImportEdge, PackageGraph } from './import-graphs.js';
export type { EntryNames, PackageNames } from './public-names.js';
