import { BuilderError } from '../errors/builder-error.js';
import { gvkOf, type Kind, type KubeObject } from '../object.js';
import { type Defaulter, defaultingHandler, type Validator, validatingHandler } from './admission.js';
import type { Spoke } from './conversion.js';
import type { SchemaValidator } from './schema-validator.js';
import type { WebhookServer } from './server.js';
import { CONVERSION_PATH } from './server.js';

/** kubebuilder's path for a kind's admission webhook: `/mutate-cache-example-com-v1beta1-memcached`. */
export function webhookPath(kind: 'mutate' | 'validate', type: Kind): string {
  const { group, version } = gvkOf(type.apiVersion, type.kind);
  return `/${kind}-${group.replaceAll('.', '-')}-${version}-${type.kind.toLowerCase()}`;
}

/** What the builder needs of the manager: its webhook server, turned on. */
export interface WebhookHost {
  enableWebhooks(): WebhookServer;
}

/** The paths `complete()` registered, for the webhook configurations and the CRD's conversion stanza. */
export interface WebhookRegistration {
  readonly type: Kind;
  readonly mutatingPath?: string;
  readonly validatingPath?: string;
  readonly conversionPath?: string;
}

/**
 * Declares a kind's webhooks on the manager's webhook server, as controller-runtime's
 * `ctrl.NewWebhookManagedBy(mgr).For(&v1beta1.Memcached{}).WithDefaulter(d).WithValidator(v).Complete()`:
 * `webhookManagedBy(mgr).for(MEMCACHED, { schema }).withDefaulter(d).withValidator(v).complete()`.
 */
export class WebhookBuilder<T extends KubeObject = KubeObject> {
  readonly #manager: WebhookHost;
  #type: Kind | undefined;
  #schema: SchemaValidator | undefined;
  #defaulter: Defaulter<T> | undefined;
  #validator: Validator<T> | undefined;
  #conversion: { hub: string; spokes: Readonly<Record<string, Spoke<KubeObject, T>>> } | undefined;

  constructor(manager: WebhookHost) {
    this.#manager = manager;
  }

  /**
   * The kind (at the version the webhooks decode) and, optionally, the validator of its schema: objects that
   * do not match it reach no defaulter or validator (the API server's own validation reports them).
   */
  for<U extends KubeObject>(type: Kind<U>, options: { schema?: SchemaValidator } = {}): WebhookBuilder<U> {
    if (this.#type) throw new BuilderError('for() may be called only once');
    this.#type = type;
    this.#schema = options.schema;
    return this as unknown as WebhookBuilder<U>;
  }

  withDefaulter(defaulter: Defaulter<T>): this {
    this.#defaulter = defaulter;
    return this;
  }

  withValidator(validator: Validator<T>): this {
    this.#validator = validator;
    return this;
  }

  /** Hub-and-spoke conversion for the kind: `hub` is usually the `for()` version, every other one a spoke. */
  withConversion(hub: string, spokes: Readonly<Record<string, Spoke<KubeObject, T>>>): this {
    this.#conversion = { hub, spokes };
    return this;
  }

  complete(): WebhookRegistration {
    const type = this.#type;
    if (!type) throw new BuilderError('for() must name the kind its webhooks serve');
    if (!this.#defaulter && !this.#validator && !this.#conversion) {
      throw new BuilderError(`no defaulter, validator or conversion given for ${type.kind}`);
    }
    const server = this.#manager.enableWebhooks();
    const registration: { -readonly [K in keyof WebhookRegistration]: WebhookRegistration[K] } = { type };
    if (this.#defaulter) {
      registration.mutatingPath = webhookPath('mutate', type);
      server.register(registration.mutatingPath, defaultingHandler(this.#defaulter, this.#schema));
    }
    if (this.#validator) {
      registration.validatingPath = webhookPath('validate', type);
      server.register(registration.validatingPath, validatingHandler(this.#validator, this.#schema));
    }
    if (this.#conversion) {
      const { group } = gvkOf(type.apiVersion, type.kind);
      server.conversions.register({ group, kind: type.kind, ...this.#conversion });
      registration.conversionPath = CONVERSION_PATH;
    }
    return registration;
  }
}

export function webhookManagedBy(manager: WebhookHost): WebhookBuilder {
  return new WebhookBuilder(manager);
}
