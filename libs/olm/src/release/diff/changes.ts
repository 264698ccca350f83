import { compareFindings, type Finding, type FindingSeverity } from '../findings.js';
import type { BundleDiff, BundleRef, CatalogDiff, ChannelDiff, PackageDiff, ValueChange } from './types.js';

/**
 * One change of a package, said once for every output: the finding (rule, severity, where) and its line
 * without the package's name, which the renderers print under the package's heading.
 */
export interface PackageChange {
  readonly rule: string;
  readonly severity: FindingSeverity;
  readonly action: 'added' | 'removed' | 'changed';
  readonly channel?: string;
  readonly edge?: { readonly from: string; readonly to: string };
  readonly subject?: string;
  readonly line: string;
}

/** Reviewers should look at what may leave users behind; every other change is for reading. */
const WARNINGS = new Set([
  'diff/package-removed',
  'diff/default-channel-changed',
  'diff/channel-removed',
  'diff/bundle-removed',
  'diff/related-image-removed',
  // A released bundle changed in place: users who installed it run other manifests than the catalog now shows.
  'diff/image-changed',
  'diff/property-changed',
  'diff/object-changed',
]);

function change(
  rule: string,
  action: PackageChange['action'],
  line: string,
  where: Pick<PackageChange, 'channel' | 'edge' | 'subject'> = {},
): PackageChange {
  return {
    rule: `diff/${rule}`,
    severity: WARNINGS.has(`diff/${rule}`) ? 'warning' : 'info',
    action,
    ...where,
    line,
  };
}

const quote = (text: string): string => JSON.stringify(text);
const bundleText = (b: BundleRef): string => (b.version === undefined ? b.name : `${b.name} (${b.version})`);

/** A deprecation of `what` added, removed or with a new message. */
function deprecationChanges(
  what: string,
  change_: ValueChange,
  where: Pick<PackageChange, 'channel' | 'subject'>,
): PackageChange {
  if (change_.from === undefined)
    return change('deprecation-added', 'added', `${what} deprecated: ${quote(change_.to ?? '')}`, where);
  if (change_.to === undefined)
    return change('deprecation-removed', 'removed', `${what} no longer deprecated`, where);
  return change(
    'deprecation-changed',
    'changed',
    `${what} deprecation message ${quote(change_.from)} → ${quote(change_.to)}`,
    where,
  );
}

/** At most this many bundles are named in the one line of a package that came or went (the structure has all). */
const LISTED_BUNDLES = 10;

function listed(names: readonly string[]): string {
  if (names.length <= LISTED_BUNDLES) return names.join(', ');
  return `${names.slice(0, LISTED_BUNDLES).join(', ')} and ${names.length - LISTED_BUNDLES} more`;
}

/** Every change of a package, in the order the renderers print them. */
export function packageChanges(pkg: PackageDiff): PackageChange[] {
  if (pkg.status !== 'changed') {
    const added = pkg.status === 'added';
    const channels = added ? pkg.channelsAdded : pkg.channelsRemoved;
    const bundles = added ? pkg.bundlesAdded : pkg.bundlesRemoved;
    const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
    return [
      change(
        added ? 'package-added' : 'package-removed',
        pkg.status,
        `package ${pkg.status} with ${count(channels.length, 'channel')} and ${count(bundles.length, 'bundle')}: ${listed(bundles.map(bundleText))}`,
      ),
    ];
  }
  const out: PackageChange[] = [];
  if (pkg.defaultChannel !== undefined) {
    const { from = '', to = '' } = pkg.defaultChannel;
    out.push(change('default-channel-changed', 'changed', `default channel ${quote(from)} → ${quote(to)}`));
  }
  if (pkg.deprecation !== undefined) out.push(deprecationChanges('package', pkg.deprecation, {}));
  for (const name of pkg.channelsAdded)
    out.push(change('channel-added', 'added', `channel ${name} added`, { channel: name }));
  for (const name of pkg.channelsRemoved)
    out.push(change('channel-removed', 'removed', `channel ${name} removed`, { channel: name }));
  for (const channel of pkg.channels) out.push(...channelChanges(channel));
  for (const b of pkg.bundlesAdded)
    out.push(change('bundle-added', 'added', `bundle ${bundleText(b)} added`, { subject: b.name }));
  for (const b of pkg.bundlesRemoved)
    out.push(change('bundle-removed', 'removed', `bundle ${bundleText(b)} removed`, { subject: b.name }));
  for (const bundle of pkg.bundles) out.push(...bundleChanges(bundle));
  return out;
}

function channelChanges(channel: ChannelDiff): PackageChange[] {
  const where = { channel: channel.name };
  const at = `channel ${channel.name}:`;
  const out: PackageChange[] = [];
  if (channel.deprecation !== undefined)
    out.push(deprecationChanges(`channel ${channel.name}`, channel.deprecation, where));
  for (const e of channel.entriesAdded)
    out.push(change('entry-added', 'added', `${at} entry ${e} added`, { ...where, subject: e }));
  for (const e of channel.entriesRemoved)
    out.push(change('entry-removed', 'removed', `${at} entry ${e} removed`, { ...where, subject: e }));
  for (const e of channel.edgesAdded) {
    const edge = { from: e.from, to: e.to };
    out.push(
      change('edge-added', 'added', `${at} edge ${e.from} → ${e.to} (${e.kind}) added`, {
        ...where,
        edge,
        subject: e.kind,
      }),
    );
  }
  for (const e of channel.edgesRemoved) {
    const edge = { from: e.from, to: e.to };
    out.push(
      change('edge-removed', 'removed', `${at} edge ${e.from} → ${e.to} (${e.kind}) removed`, {
        ...where,
        edge,
        subject: e.kind,
      }),
    );
  }
  for (const s of channel.skipRanges) {
    const text = (v: string | undefined) => (v === undefined ? 'none' : quote(v));
    out.push(
      change(
        'skip-range-changed',
        'changed',
        `${at} entry ${s.entry} skipRange ${text(s.from)} → ${text(s.to)}`,
        {
          ...where,
          subject: s.entry,
        },
      ),
    );
  }
  return out;
}

/** A property value for one line: its canonical JSON, cut short when long (the JSON output has it whole). */
function shortValue(json: string): string {
  const chars = [...json];
  return chars.length <= 100 ? json : `${chars.slice(0, 99).join('')}…`;
}

function bundleChanges(bundle: BundleDiff): PackageChange[] {
  const at = `bundle ${bundle.name}:`;
  // A bundle of both catalogs whose own content changed was released once with other content.
  const inPlace = `released bundle ${bundle.name} changed in place:`;
  const where = (subject: string) => ({ subject: `${bundle.name} ${subject}` });
  const out: PackageChange[] = [];
  if (bundle.image !== undefined) {
    const { from = '', to = '' } = bundle.image;
    out.push(
      change('image-changed', 'changed', `${inPlace} image ${quote(from)} → ${quote(to)}`, where('image')),
    );
  }
  if (bundle.deprecation !== undefined)
    out.push(deprecationChanges(`bundle ${bundle.name}`, bundle.deprecation, where('deprecation')));
  for (const p of bundle.properties) {
    if (p.changed !== undefined) {
      const fields = p.changed.fields.length > 0 ? ` (${p.changed.fields.join(', ')})` : '';
      out.push(
        change(
          'property-changed',
          'changed',
          `${inPlace} property ${p.type}${fields} ${shortValue(p.changed.from)} → ${shortValue(p.changed.to)}`,
          where(p.type),
        ),
      );
    }
    for (const v of p.added)
      out.push(
        change('property-added', 'added', `${at} property ${p.type} ${shortValue(v)} added`, where(p.type)),
      );
    for (const v of p.removed)
      out.push(
        change(
          'property-removed',
          'removed',
          `${at} property ${p.type} ${shortValue(v)} removed`,
          where(p.type),
        ),
      );
  }
  const object = (o: { kind: string; name: string }) => `${o.kind}/${o.name}`;
  for (const o of bundle.objectsAdded)
    out.push(change('object-added', 'added', `${at} manifest ${object(o)} added`, where(object(o))));
  for (const o of bundle.objectsRemoved)
    out.push(change('object-removed', 'removed', `${at} manifest ${object(o)} removed`, where(object(o))));
  for (const o of bundle.objectsChanged)
    out.push(
      change('object-changed', 'changed', `${inPlace} manifest ${object(o)} changed`, where(object(o))),
    );
  const image = (r: { name: string; image: string }) => (r.name === '' ? r.image : `${r.name} ${r.image}`);
  for (const r of bundle.relatedImagesAdded)
    out.push(change('related-image-added', 'added', `${at} related image ${image(r)} added`, where(r.image)));
  for (const r of bundle.relatedImagesRemoved)
    out.push(
      change('related-image-removed', 'removed', `${at} related image ${image(r)} removed`, where(r.image)),
    );
  for (const r of bundle.relatedImagesChanged)
    out.push(
      change(
        'related-image-changed',
        'changed',
        `${at} related image ${r.name} ${r.from} → ${r.to}`,
        where(r.name),
      ),
    );
  return out;
}

/**
 * Every change of the diff as a `diff/…` finding: `warning` for what may leave users behind (a package, channel,
 * bundle or related image removed, the default channel changed) and for a released bundle changed in place (its
 * image, a property or a manifest), `info` for the rest. Never `error`: whether
 * installations are stranded is for the upgrade-path checks to say. In {@link compareFindings} order.
 */
export function diffFindings(diff: CatalogDiff): Finding[] {
  return diff.packages
    .flatMap((pkg) =>
      packageChanges(pkg).map(
        ({ action: _action, line, ...finding }): Finding => ({
          ...finding,
          package: pkg.name,
          message: `${pkg.name}: ${line}`,
        }),
      ),
    )
    .sort(compareFindings);
}
