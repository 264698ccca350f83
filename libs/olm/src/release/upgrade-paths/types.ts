import { goQuote } from '../../go-compat/go-format.js';
import type { EdgeKind } from '../../graph/upgrade-graph.js';

/** Whose resolution rules a path follows: OLM v0 Subscriptions or OLM v1 ClusterExtensions. */
export type UpgradeRules = 'v0' | 'v1';

/** The channel selection of an OLM v1 ClusterExtension that names no channel: every channel of the package. */
export const ALL_CHANNELS = '';

/** A bundle on an upgrade path. */
export interface PathBundle {
  readonly name: string;
  /** Its `olm.package` version as the catalog writes it. */
  readonly version: string;
  /** Whether an `olm.deprecations` entry deprecates the bundle itself. */
  readonly deprecated: boolean;
}

/** One upgrade the resolver performs. */
export interface PathStep {
  readonly to: PathBundle;
  /** The edges that connect the bundle before it to `to`, in replaces, skips, skipRange order. */
  readonly via: readonly EdgeKind[];
}

/**
 * Where repeated upgrades from an installed bundle end: `head` on a head of the selected channels, `stuck` on
 * another bundle because nothing is offered from it, `cycle` back on a bundle already passed, `error` where
 * the resolver fails (OLM v0's channel-ordering errors).
 */
export type PathOutcome = 'head' | 'stuck' | 'cycle' | 'error';

/** The upgrades from one installed bundle, one resolution after the other, until the resolver stays. */
export interface UpgradePath {
  readonly from: PathBundle;
  /** False for a bundle users may still run that the catalog no longer lists (taken from the previous one). */
  readonly inCatalog: boolean;
  readonly steps: readonly PathStep[];
  readonly outcome: PathOutcome;
  /** The resolver's message, for `error`. */
  readonly error?: string;
}

/** The paths of every installed bundle of one channel selection. */
export interface ChannelPaths {
  /** The channel subscribed to; {@link ALL_CHANNELS} (`''`) for an OLM v1 extension naming none. */
  readonly channel: string;
  /**
   * Where paths should end, by name: under OLM v0 the heads of the selected channels (entries no other entry of
   * their channel replaces or skips); under OLM v1 the bundle a new installation of the selection gets.
   */
  readonly heads: readonly string[];
  /** By installed bundle name, in Go byte order. */
  readonly paths: readonly UpgradePath[];
}

/** The upgrade paths of one package under one set of rules. */
export interface PackagePaths {
  readonly package: string;
  readonly rules: UpgradeRules;
  /** By channel name in Go byte order; {@link ALL_CHANNELS} first for v1. */
  readonly channels: readonly ChannelPaths[];
}

/** The last bundle of the path: where the user ends up. */
export function pathEnd(path: UpgradePath): PathBundle {
  return path.steps.at(-1)?.to ?? path.from;
}

/** How a report names a channel selection. */
export function selectionName(channel: string): string {
  return channel === ALL_CHANNELS ? 'all channels' : `channel ${goQuote(channel)}`;
}
