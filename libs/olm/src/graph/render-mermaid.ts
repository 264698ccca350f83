import { PropertyParseError, parseProperties } from '../catalog/properties.js';
import type { Catalog, ChannelBlob } from '../catalog/types.js';
import { goQuote } from '../semver/go-quote.js';
import { rangeIncludes, tryParseRange } from '../semver/range.js';
import { compareVersions, parseVersion, type Version } from '../semver/version.js';
import { GraphError } from './errors.js';

/** Options of {@link renderMermaid}, mirroring `opm alpha render-graph` flags. */
export interface MermaidOptions {
  /** `--package-name`: only this package. */
  readonly packageName?: string;
  /** `--draw-v0-semantics`: mark skipped entries and the edges OLM v0 never follows. Default `false`. */
  readonly drawV0Semantics?: boolean;
}

const ZERO: Version = parseVersion('0.0.0');

function bundleVersions(catalog: Catalog): Map<string, Version> {
  const out = new Map<string, Version>();
  for (const b of catalog.bundles) {
    if (out.has(b.name)) continue;
    let props: ReturnType<typeof parseProperties>;
    try {
      props = parseProperties(b.properties);
    } catch (err) {
      if (!(err instanceof PropertyParseError)) throw err;
      throw new GraphError(
        'GRAPH_INVALID_VERSION',
        `parse properties for bundle ${goQuote(b.name)}: ${err.message}`,
      );
    }
    if (props.packages.length !== 1) {
      throw new GraphError(
        'GRAPH_INVALID_VERSION',
        `bundle ${goQuote(b.name)} has multiple "olm.package" properties, expected exactly 1`,
      );
    }
    const raw = props.packages[0]!.version;
    try {
      out.set(b.name, parseVersion(raw));
    } catch (err) {
      throw new GraphError(
        'GRAPH_INVALID_VERSION',
        `bundle ${goQuote(b.name)} has invalid version ${goQuote(raw)}: ${(err as Error).message}`,
      );
    }
  }
  return out;
}

/**
 * Renders the channels of a catalog as a Mermaid flowchart byte-identical to `opm alpha render-graph`
 * (operator-registry v1.73.0 `MermaidWriter.WriteChannels`): one subgraph per package and channel, entries by
 * decreasing version, `skip`, `skipRange(<range>)` and `replace` edges pointing from the older to the newer
 * entry, deprecated objects styled. The `--minimum-edge` filter is not supported.
 *
 * @throws GraphError when a bundle's version cannot be read (opm fails the same way)
 */
export function renderMermaid(catalog: Catalog, options: MermaidOptions = {}): string {
  const drawV0 = options.drawV0Semantics ?? false;
  const versions = bundleVersions(catalog);
  const version = (name: string): Version => versions.get(name) ?? ZERO;
  const channels: ChannelBlob[] = catalog.channels
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (a.c.name < b.c.name ? -1 : a.c.name > b.c.name ? 1 : a.i - b.i))
    .map(({ c }) => c)
    .filter(
      (c) =>
        options.packageName === undefined || options.packageName === '' || c.package === options.packageName,
    );

  const depByPackage = new Set<string>();
  const depByChannel = new Set<string>();
  const depByBundle = new Set<string>();
  for (const d of catalog.deprecations) {
    for (const e of d.entries) {
      if (e.reference.schema === 'olm.package') depByPackage.add(d.package);
      else if (e.reference.schema === 'olm.channel') depByChannel.add(e.reference.name ?? '');
      else if (e.reference.schema === 'olm.bundle') depByBundle.add(e.reference.name ?? '');
    }
  }

  const pkgs = new Map<string, string[]>();
  let deprecatedPackage = '';
  const deprecatedChannelIds: string[] = [];
  const decorated: Record<'deprecated' | 'skipped' | 'deprecatedskipped', string[]> = {
    deprecated: [],
    deprecatedskipped: [],
    skipped: [],
  };
  let linkId = 0;
  const skippedLinkIds: string[] = [];

  for (const c of channels) {
    const lines = pkgs.get(c.package) ?? [];
    pkgs.set(c.package, lines);
    const channelId = `${c.package}-${c.name}`;
    lines.push(`    %% channel ${goQuote(c.name)}`, `    subgraph ${channelId}[${goQuote(c.name)}]`);
    if (depByPackage.has(c.package)) deprecatedPackage = c.package;
    if (depByChannel.has(c.name)) deprecatedChannelIds.push(channelId);
    const sorted = c.entries
      .map((e, i) => ({ e, i }))
      .sort((a, b) => compareVersions(version(b.e.name), version(a.e.name)) || a.i - b.i)
      .map(({ e }) => e);
    const skippedEntities = new Set<string>();
    const semantics = (edge: string, id: number, captureNew: boolean): void => {
      if (!drawV0) return;
      if (captureNew) {
        if (skippedEntities.has(edge)) skippedLinkIds.push(String(id));
        else skippedEntities.add(edge);
      } else if (skippedEntities.has(edge)) {
        skippedLinkIds.push(String(id));
      }
    };
    for (const ce of sorted) {
      const entryId = `${channelId}-${ce.name}`;
      lines.push(`      ${entryId}[${goQuote(ce.name)}]`);
      if (depByBundle.has(ce.name) && skippedEntities.has(ce.name)) decorated.deprecatedskipped.push(entryId);
      else if (depByBundle.has(ce.name)) decorated.deprecated.push(entryId);
      else if (skippedEntities.has(ce.name)) decorated.skipped.push(entryId);
      for (const s of ce.skips ?? []) {
        lines.push(`      ${channelId}-${s}[${goQuote(s)}]-- skip --> ${entryId}[${goQuote(ce.name)}]`);
        semantics(s, linkId, true);
        linkId++;
      }
      if (ce.skipRange) {
        const range = tryParseRange(ce.skipRange);
        if (range) {
          for (const other of c.entries) {
            if (rangeIncludes(range, version(other.name))) {
              lines.push(
                `      ${channelId}-${other.name}[${goQuote(other.name)}]-- "skipRange(${ce.skipRange})" --> ${entryId}[${goQuote(ce.name)}]`,
              );
              semantics(ce.name, linkId, false);
              linkId++;
            }
          }
        }
      }
      if (ce.replaces) {
        lines.push(
          `      ${channelId}-${ce.replaces}[${goQuote(ce.replaces)}]-- replace --> ${entryId}[${goQuote(ce.name)}]`,
        );
        semantics(ce.name, linkId, false);
        linkId++;
      }
    }
    lines.push('    end');
  }

  const out = [
    'graph LR',
    '  classDef deprecated fill:#E8960F',
    '  classDef skipped stroke:#FF0000,stroke-width:4px',
    '  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px',
  ];
  for (const name of [...pkgs.keys()].sort()) {
    out.push(`  %% package ${goQuote(name)}`, `  subgraph ${goQuote(name)}`, ...pkgs.get(name)!, '  end');
  }
  if (deprecatedPackage !== '') out.push(`style ${deprecatedPackage} fill:#989695`);
  for (const id of deprecatedChannelIds) out.push(`style ${id} fill:#DCD0FF`);
  for (const key of ['deprecated', 'deprecatedskipped', 'skipped'] as const) {
    if (decorated[key].length > 0) out.push(`class ${[...decorated[key]].sort().join(',')} ${key}`);
  }
  if (skippedLinkIds.length > 0) {
    out.push(`linkStyle ${skippedLinkIds.join(',')} stroke:#FF0000,stroke-width:3px,stroke-dasharray:5;`);
  }
  return `${out.join('\n')}\n`;
}
