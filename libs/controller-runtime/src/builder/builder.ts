import { Controller, type ControllerOptions, type WatchSpec } from '../controller/controller.js';
import { BuilderError } from '../errors/builder-error.js';
import { enqueueForObject, enqueueForOwner, type MapFunc } from '../handler/handlers.js';
import type { Manager } from '../manager/manager.js';
import type { Kind, KubeObject } from '../object.js';
import type { Predicate } from '../predicate/predicates.js';
import type { Reconciler } from '../reconcile/reconcile.js';

export interface WatchOptions {
  readonly predicates?: readonly Predicate[];
}

/**
 * Declares a controller the way controller-runtime's builder does:
 * `controllerManagedBy(mgr).for(Memcached).owns(Deployment).complete(reconcile)`.
 */
export class ControllerBuilder {
  readonly #manager: Manager;
  #for: (WatchSpec & { type: Kind }) | undefined;
  readonly #watches: WatchSpec[] = [];
  readonly #owned: { type: Kind; predicates: readonly Predicate[] }[] = [];
  readonly #globalPredicates: Predicate[] = [];
  #name: string | undefined;
  #options: Omit<ControllerOptions, 'name'> = {};

  constructor(manager: Manager) {
    this.#manager = manager;
  }

  /** The kind this controller reconciles: its own events enqueue its own key. */
  for<T extends KubeObject>(type: Kind<T>, options: WatchOptions = {}): this {
    if (this.#for) throw new BuilderError('for() may be called only once');
    this.#for = { type, map: enqueueForObject(), predicates: options.predicates ?? [] };
    return this;
  }

  /** A kind this controller creates: changes enqueue the controlling owner (of the `for` kind). */
  owns(type: Kind, options: WatchOptions = {}): this {
    this.#owned.push({ type, predicates: options.predicates ?? [] });
    return this;
  }

  /** Any other kind, mapped to requests by a function. */
  watches<T extends KubeObject>(type: Kind<T>, map: MapFunc<T>, options: WatchOptions = {}): this {
    this.#watches.push({ type, map: map as MapFunc, predicates: options.predicates ?? [] });
    return this;
  }

  /** A predicate applied to every watch of this controller. */
  withEventFilter(predicate: Predicate): this {
    this.#globalPredicates.push(predicate);
    return this;
  }

  withOptions(options: Omit<ControllerOptions, 'name'>): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }

  named(name: string): this {
    this.#name = name;
    return this;
  }

  /** Builds the controller and adds it to the manager. */
  complete(reconciler: Reconciler): Controller {
    const primary = this.#for;
    if (!primary) throw new BuilderError('a controller needs for(kind)');
    const name = this.#name ?? primary.type.kind.toLowerCase();
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name)) {
      throw new BuilderError(`controller name "${name}" must be a lowercase DNS-style name`);
    }
    const controller = new Controller({ ...this.#options, name }, reconciler, {
      cache: this.#manager.cache,
      metrics: this.#manager.metrics,
      logger: this.#manager.logger,
    });
    controller.watch({ ...primary, predicates: [...this.#globalPredicates, ...primary.predicates] });
    const toOwner = enqueueForOwner(primary.type);
    for (const w of [...this.#owned.map((o) => ({ ...o, map: toOwner })), ...this.#watches]) {
      controller.watch({
        type: w.type,
        map: w.map,
        predicates: [...this.#globalPredicates, ...w.predicates],
      });
    }
    this.#manager.add(controller);
    return controller;
  }
}

export function controllerManagedBy(manager: Manager): ControllerBuilder {
  return new ControllerBuilder(manager);
}
