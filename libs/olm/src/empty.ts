/**
 * The one empty list shared by everything loaded: most of a catalog's bundles leave some lists empty (no
 * skips, no prerelease, no build metadata), and a frozen shared instance costs nothing per item.
 */
export const NONE: readonly never[] = Object.freeze([]);
