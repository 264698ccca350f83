import { goQuote } from '../go-compat/go-format.js';
import type { ApiBundle, ApiChannelEntry, ApiPackage, ProvidersRequest } from './api.js';
import { bundleWith, withoutManifests } from './bundle-manifests.js';
import { RegistryQueryError } from './errors.js';
import type { RegistryEntry, RegistryModel, RegistryPackage } from './registry-model.js';

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A bundle as the single-bundle methods return it: `replaces` and `skips` cleared, as opm does. Manifests kept
 * in the serve cache are not read here: the server reads them once, asynchronously, as it answers.
 */
function trimmed(entry: RegistryEntry): ApiBundle {
  return bundleWith(entry.bundle, { replaces: '', skips: [] });
}

const entryOf = (e: RegistryEntry, replaces: string = e.replaces): ApiChannelEntry => ({
  packageName: e.packageName,
  channelName: e.channelName,
  bundleName: e.name,
  replaces,
});

/**
 * The `api.Registry` methods over a {@link RegistryModel}, with opm's results and error messages
 * (operator-registry's serve cache). Where opm walks Go maps, this walks names in sorted order, so the
 * results are the same sets in a stable order; `GetBundleThatReplaces` returns the first match by name.
 */
export class RegistryQueries {
  constructor(private readonly model: RegistryModel) {}

  private *allEntries(): Generator<RegistryEntry> {
    for (const pkg of this.packagesInOrder()) {
      for (const name of [...pkg.channels.keys()].sort(byName)) {
        const ch = pkg.channels.get(name)!;
        for (const b of [...ch.entries.keys()].sort(byName)) yield ch.entries.get(b)!;
      }
    }
  }

  private packagesInOrder(): RegistryPackage[] {
    return [...this.model.packages.keys()].sort(byName).map((n) => this.model.packages.get(n)!);
  }

  private pkg(name: string, quoted = true): RegistryPackage {
    const pkg = this.model.packages.get(name);
    if (!pkg) throw new RegistryQueryError(`package ${quoted ? goQuote(name) : name} not found`);
    return pkg;
  }

  private channel(pkgName: string, channelName: string, quotedPackage = true) {
    const ch = this.pkg(pkgName, quotedPackage).channels.get(channelName);
    if (!ch)
      throw new RegistryQueryError(`package ${goQuote(pkgName)}, channel ${goQuote(channelName)} not found`);
    return ch;
  }

  listPackages(): string[] {
    return this.packagesInOrder().map((p) => p.name);
  }

  getPackage(name: string): ApiPackage {
    const pkg = this.pkg(name);
    return {
      name: pkg.name,
      defaultChannelName: pkg.defaultChannel,
      channels: [...pkg.channels.keys()].sort(byName).map((n) => {
        const ch = pkg.channels.get(n)!;
        return {
          name: ch.name,
          csvName: ch.head,
          ...(ch.deprecation ? { deprecation: ch.deprecation } : {}),
        };
      }),
      ...(pkg.deprecation ? { deprecation: pkg.deprecation } : {}),
    };
  }

  getBundle(pkgName: string, channelName: string, csvName: string): ApiBundle {
    const entry = this.channel(pkgName, channelName).entries.get(csvName);
    if (!entry) {
      throw new RegistryQueryError(
        `package ${goQuote(pkgName)}, channel ${goQuote(channelName)}, bundle ${goQuote(csvName)} not found`,
      );
    }
    return trimmed(entry);
  }

  getBundleForChannel(pkgName: string, channelName: string): ApiBundle {
    const ch = this.channel(pkgName, channelName);
    return trimmed(ch.entries.get(ch.head)!);
  }

  getChannelEntriesThatReplace(csvName: string): ApiChannelEntry[] {
    const out: ApiChannelEntry[] = [];
    for (const e of this.allEntries()) {
      if (e.replaces === csvName) out.push(entryOf(e));
      // An entry that also skips what it replaces is listed once per matching skip that differs from replaces.
      for (const s of e.skips) if (s === csvName && s !== e.replaces) out.push(entryOf(e));
    }
    if (out.length === 0) throw new RegistryQueryError(`no channel entries found that replace ${csvName}`);
    return out;
  }

  getBundleThatReplaces(csvName: string, pkgName: string, channelName: string): ApiBundle {
    // opm formats this one package name without quotes.
    const ch = this.channel(pkgName, channelName, false);
    for (const name of [...ch.entries.keys()].sort(byName)) {
      const e = ch.entries.get(name)!;
      if (e.replaces === csvName || e.skips.includes(csvName)) return trimmed(e);
    }
    throw new RegistryQueryError(
      `no entry found for package ${goQuote(pkgName)}, channel ${goQuote(channelName)}`,
    );
  }

  /** One entry for the bundle, plus one per skipped name (only names in the channel unless `anySkip`). */
  private entriesForBundle(e: RegistryEntry, anySkip: boolean): ApiChannelEntry[] {
    const out = [entryOf(e)];
    const channel = this.model.packages.get(e.packageName)!.channels.get(e.channelName)!;
    for (const s of e.skips) {
      if (s !== e.replaces && (anySkip || channel.entries.has(s))) out.push(entryOf(e, s));
    }
    return out;
  }

  private static provides(e: RegistryEntry, q: ProvidersRequest): boolean {
    return e.providedApis.some((g) => g.group === q.group && g.version === q.version && g.kind === q.kind);
  }

  private static notProvided(q: ProvidersRequest): string {
    return `no channel entries found that provide group:${goQuote(q.group)} version:${goQuote(q.version)} kind:${goQuote(q.kind)}`;
  }

  getChannelEntriesThatProvide(q: ProvidersRequest): ApiChannelEntry[] {
    const out: ApiChannelEntry[] = [];
    for (const e of this.allEntries())
      if (RegistryQueries.provides(e, q)) out.push(...this.entriesForBundle(e, true));
    if (out.length === 0) throw new RegistryQueryError(RegistryQueries.notProvided(q));
    return out;
  }

  getLatestChannelEntriesThatProvide(q: ProvidersRequest): ApiChannelEntry[] {
    const out: ApiChannelEntry[] = [];
    for (const pkg of this.packagesInOrder()) {
      for (const name of [...pkg.channels.keys()].sort(byName)) {
        const ch = pkg.channels.get(name)!;
        const head = ch.entries.get(ch.head)!;
        if (RegistryQueries.provides(head, q)) out.push(...this.entriesForBundle(head, false));
      }
    }
    if (out.length === 0) throw new RegistryQueryError(RegistryQueries.notProvided(q));
    return out;
  }

  getDefaultBundleThatProvides(q: ProvidersRequest): ApiBundle {
    // Packages in name order; the first head of a default channel that provides the API wins.
    for (const e of this.getLatestChannelEntriesThatProvide(q)) {
      const pkg = this.model.packages.get(e.packageName)!;
      if (e.channelName === pkg.defaultChannel)
        return this.getBundle(e.packageName, e.channelName, e.bundleName);
    }
    throw new RegistryQueryError(
      `no entry found that provides group:${goQuote(q.group)} version:${goQuote(q.version)} kind:${goQuote(q.kind)}`,
    );
  }

  /** Every (channel, bundle); content (`csvJson`, `object`) is left out when the bundle has an image, as opm does. */
  *listBundles(): Generator<ApiBundle> {
    for (const e of this.allEntries()) {
      yield e.bundle.bundlePath !== '' ? withoutManifests(e.bundle) : e.bundle;
    }
  }
}
