import { PropertyParseError, parseProperties } from '../catalog/declcfg/properties.js';
import type { Catalog, ChannelBlob } from '../catalog/declcfg/types.js';
import { byteOrder, goQuote, sortInByteOrder } from '../go-compat/go-format.js';
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

/** The channels opm draws: sorted by name (stable), limited to `--package-name` when given. */
function selectedChannels(catalog: Catalog, packageName: string | undefined): ChannelBlob[] {
  return catalog.channels
    .map((c, i) => ({ c, i }))
    .sort((a, b) => byteOrder(a.c.name, b.c.name) || a.i - b.i)
    .map(({ c }) => c)
    .filter((c) => packageName === undefined || packageName === '' || c.package === packageName);
}

/** The names the catalog's `olm.deprecations` entries point at, by kind of reference. */
interface DeprecatedNames {
  readonly packages: Set<string>;
  readonly channels: Set<string>;
  readonly bundles: Set<string>;
}

function deprecatedNames(catalog: Catalog): DeprecatedNames {
  const names: DeprecatedNames = { packages: new Set(), channels: new Set(), bundles: new Set() };
  for (const d of catalog.deprecations) {
    for (const e of d.entries) {
      if (e.reference.schema === 'olm.package') names.packages.add(d.package);
      else if (e.reference.schema === 'olm.channel') names.channels.add(e.reference.name ?? '');
      else if (e.reference.schema === 'olm.bundle') names.bundles.add(e.reference.name ?? '');
    }
  }
  return names;
}

/** The flowchart being drawn: subgraph lines per package, and the styles written after all subgraphs. */
interface Flowchart {
  readonly packageLines: Map<string, string[]>;
  deprecatedPackage: string;
  readonly deprecatedChannelIds: string[];
  readonly decorated: Record<'deprecated' | 'skipped' | 'deprecatedskipped', string[]>;
  /** Mermaid numbers edges across the whole chart, in drawing order. */
  nextLinkId: number;
  readonly skippedLinkIds: string[];
}

/** What every channel is drawn against. */
interface ChannelContext {
  readonly version: (bundleName: string) => Version;
  readonly deprecated: DeprecatedNames;
  readonly drawV0: boolean;
}

/** Draws one channel subgraph: its entries by decreasing version, each followed by its incoming edges. */
function drawChannel(
  chart: Flowchart,
  c: ChannelBlob,
  { version, deprecated, drawV0 }: ChannelContext,
): void {
  const lines = chart.packageLines.get(c.package) ?? [];
  chart.packageLines.set(c.package, lines);
  const channelId = `${c.package}-${c.name}`;
  lines.push(`    %% channel ${goQuote(c.name)}`, `    subgraph ${channelId}[${goQuote(c.name)}]`);
  if (deprecated.packages.has(c.package)) chart.deprecatedPackage = c.package;
  if (deprecated.channels.has(c.name)) chart.deprecatedChannelIds.push(channelId);
  const sorted = c.entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => compareVersions(version(b.e.name), version(a.e.name)) || a.i - b.i)
    .map(({ e }) => e);
  const skippedEntities = new Set<string>();
  // Records the edge just drawn, marking it when OLM v0 would never follow it.
  const addEdge = (line: string, entity: string, captureNew: boolean): void => {
    lines.push(line);
    const id = chart.nextLinkId++;
    if (!drawV0) return;
    if (captureNew) {
      if (skippedEntities.has(entity)) chart.skippedLinkIds.push(String(id));
      else skippedEntities.add(entity);
    } else if (skippedEntities.has(entity)) {
      chart.skippedLinkIds.push(String(id));
    }
  };
  for (const ce of sorted) {
    const entryId = `${channelId}-${ce.name}`;
    const entryNode = `${entryId}[${goQuote(ce.name)}]`;
    lines.push(`      ${entryNode}`);
    if (deprecated.bundles.has(ce.name) && skippedEntities.has(ce.name))
      chart.decorated.deprecatedskipped.push(entryId);
    else if (deprecated.bundles.has(ce.name)) chart.decorated.deprecated.push(entryId);
    else if (skippedEntities.has(ce.name)) chart.decorated.skipped.push(entryId);
    for (const s of ce.skips ?? []) {
      addEdge(`      ${channelId}-${s}[${goQuote(s)}]-- skip --> ${entryNode}`, s, true);
    }
    const range = ce.skipRange ? tryParseRange(ce.skipRange) : undefined;
    if (range) {
      for (const other of c.entries) {
        if (!rangeIncludes(range, version(other.name))) continue;
        addEdge(
          `      ${channelId}-${other.name}[${goQuote(other.name)}]-- "skipRange(${ce.skipRange})" --> ${entryNode}`,
          ce.name,
          false,
        );
      }
    }
    if (ce.replaces) {
      addEdge(
        `      ${channelId}-${ce.replaces}[${goQuote(ce.replaces)}]-- replace --> ${entryNode}`,
        ce.name,
        false,
      );
    }
  }
  lines.push('    end');
}

/** Writes the chart: class definitions, one subgraph per package by name, then the deprecation and skip styles. */
function writeFlowchart(chart: Flowchart): string {
  const out = [
    'graph LR',
    '  classDef deprecated fill:#E8960F',
    '  classDef skipped stroke:#FF0000,stroke-width:4px',
    '  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px',
  ];
  for (const [name, lines] of [...chart.packageLines].sort(([a], [b]) => byteOrder(a, b))) {
    out.push(`  %% package ${goQuote(name)}`, `  subgraph ${goQuote(name)}`, ...lines, '  end');
  }
  if (chart.deprecatedPackage !== '') out.push(`style ${chart.deprecatedPackage} fill:#989695`);
  for (const id of chart.deprecatedChannelIds) out.push(`style ${id} fill:#DCD0FF`);
  for (const key of ['deprecated', 'deprecatedskipped', 'skipped'] as const) {
    if (chart.decorated[key].length > 0)
      out.push(`class ${sortInByteOrder([...chart.decorated[key]]).join(',')} ${key}`);
  }
  if (chart.skippedLinkIds.length > 0) {
    out.push(
      `linkStyle ${chart.skippedLinkIds.join(',')} stroke:#FF0000,stroke-width:3px,stroke-dasharray:5;`,
    );
  }
  return `${out.join('\n')}\n`;
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
  const versions = bundleVersions(catalog);
  const context: ChannelContext = {
    version: (name) => versions.get(name) ?? ZERO,
    deprecated: deprecatedNames(catalog),
    drawV0: options.drawV0Semantics ?? false,
  };
  const chart: Flowchart = {
    packageLines: new Map(),
    deprecatedPackage: '',
    deprecatedChannelIds: [],
    decorated: { deprecated: [], deprecatedskipped: [], skipped: [] },
    nextLinkId: 0,
    skippedLinkIds: [],
  };
  for (const c of selectedChannels(catalog, options.packageName)) drawChannel(chart, c, context);
  return writeFlowchart(chart);
}
