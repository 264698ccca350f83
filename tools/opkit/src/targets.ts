// The upstream releases whose behaviour opkit reproduces: OLM's install it lays out (`opkit olm install`) and
// the opm whose catalogs, renders, migrations and registry API its catalog commands match byte for byte.

/** OLM's release `opkit olm install` lays out by default. */
export const OLM_VERSION = '0.46.0';

/** The opm release the catalog commands match (templates, render, migrate, validate, serve). */
export const OPM_VERSION = '1.73.0';
