import type { KubeObject } from '../object.js';
import { BadRequestError, isRecord } from './request.js';

/**
 * A version that is not the hub converts to and from it (controller-runtime's `Convertible`). `toHub` and
 * `fromHub` get their own copy and return the converted object; metadata other than labels and annotations
 * is kept from the input whatever they return, as the API server requires.
 */
export interface Spoke<S extends KubeObject, H extends KubeObject> {
  toHub(obj: S): H;
  fromHub(hub: H): S;
}

/**
 * Hub and spokes for one kind: every served version converts through the hub, so n versions need n - 1
 * pairs of functions, not n².
 */
export interface ConversionSpec<H extends KubeObject> {
  readonly group: string;
  readonly kind: string;
  /** The hub version, usually the storage version the controller works on. */
  readonly hub: string;
  readonly spokes: Readonly<Record<string, Spoke<KubeObject, H>>>;
}

export interface ConversionReview {
  readonly apiVersion: 'apiextensions.k8s.io/v1';
  readonly kind: 'ConversionReview';
  readonly response: {
    readonly uid: string;
    readonly convertedObjects: readonly KubeObject[];
    readonly result:
      | { readonly status: 'Success' }
      | { readonly status: 'Failure'; readonly message: string };
  };
}

/** Raised for an object no registered conversion covers; the review answers with a Failure result. */
export class ConversionError extends Error {
  readonly code = 'RUNTIME_CONVERSION_FAILED';
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The conversions of every kind this webhook serves, behind one `/convert` path as kubebuilder lays it out. */
export class Conversions {
  readonly #specs = new Map<string, ConversionSpec<KubeObject>>();

  register<H extends KubeObject>(spec: ConversionSpec<H>): void {
    const key = `${spec.kind}.${spec.group}`;
    if (this.#specs.has(key)) throw new Error(`a conversion for ${key} is already registered`);
    if (spec.hub in spec.spokes) throw new Error(`${key}: the hub ${spec.hub} cannot also be a spoke`);
    this.#specs.set(key, spec as unknown as ConversionSpec<KubeObject>);
  }

  get size(): number {
    return this.#specs.size;
  }

  /** One object into `apiVersion`, through the hub. */
  convert(obj: KubeObject, apiVersion: string): KubeObject {
    const from = splitApiVersion(obj.apiVersion ?? '');
    const to = splitApiVersion(apiVersion);
    const key = `${obj.kind}.${from.group}`;
    const spec = this.#specs.get(key);
    if (!spec) throw new ConversionError(`no conversion registered for ${key}`);
    if (to.group !== from.group) {
      throw new ConversionError(`cannot convert ${key} to another group (${apiVersion})`);
    }
    const known = (v: string) => v === spec.hub || v in spec.spokes;
    for (const v of [from.version, to.version]) {
      if (!known(v)) throw new ConversionError(`${key}: no conversion for version ${v}`);
    }
    if (from.version === to.version) return obj;
    const input = structuredClone(obj);
    const hub =
      from.version === spec.hub
        ? input
        : (spec.spokes[from.version] as Spoke<KubeObject, KubeObject>).toHub(input);
    const out =
      to.version === spec.hub
        ? hub
        : (spec.spokes[to.version] as Spoke<KubeObject, KubeObject>).fromHub(structuredClone(hub));
    const { labels, annotations } = out.metadata;
    const metadata = { ...obj.metadata };
    delete metadata.labels;
    delete metadata.annotations;
    return {
      ...out,
      apiVersion,
      kind: obj.kind,
      metadata: {
        ...metadata,
        ...(labels && Object.keys(labels).length > 0 ? { labels } : {}),
        ...(annotations && Object.keys(annotations).length > 0 ? { annotations } : {}),
      },
    };
  }

  /** Answers a `ConversionReview` (apiextensions.k8s.io/v1): every object converted, or a Failure result. */
  async handle(review: unknown): Promise<ConversionReview> {
    if (!isRecord(review) || review.kind !== 'ConversionReview') {
      throw new BadRequestError('expected a ConversionReview');
    }
    if (review.apiVersion !== 'apiextensions.k8s.io/v1') {
      throw new BadRequestError(
        `unsupported ConversionReview apiVersion ${JSON.stringify(review.apiVersion)}`,
      );
    }
    const request = review.request;
    if (
      !isRecord(request) ||
      typeof request.uid !== 'string' ||
      typeof request.desiredAPIVersion !== 'string'
    ) {
      throw new BadRequestError('ConversionReview has no request.uid or request.desiredAPIVersion');
    }
    if (!Array.isArray(request.objects)) throw new BadRequestError('ConversionReview has no request.objects');
    const { uid, desiredAPIVersion, objects } = request;
    const answer = (result: ConversionReview['response']['result'], convertedObjects: KubeObject[] = []) => ({
      apiVersion: 'apiextensions.k8s.io/v1' as const,
      kind: 'ConversionReview' as const,
      response: { uid, convertedObjects, result },
    });
    try {
      const converted = objects.map((obj, i) => {
        if (
          !isRecord(obj) ||
          typeof obj.apiVersion !== 'string' ||
          typeof obj.kind !== 'string' ||
          !isRecord(obj.metadata)
        ) {
          throw new ConversionError(`request.objects[${i}] is not a Kubernetes object`);
        }
        return this.convert(obj as unknown as KubeObject, desiredAPIVersion);
      });
      return answer({ status: 'Success' }, converted);
    } catch (error) {
      return answer({ status: 'Failure', message: error instanceof Error ? error.message : String(error) });
    }
  }
}

/**
 * Keeps fields a version cannot express across a round trip through it, as Kubernetes' own types do: the
 * spoke's `fromHub` stores them in an annotation, its `toHub` takes them back (and removes the annotation).
 */
export function stashFields(obj: KubeObject, annotation: string, fields: Record<string, unknown>): void {
  const kept = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  const annotations = { ...obj.metadata.annotations };
  if (Object.keys(kept).length > 0) annotations[annotation] = JSON.stringify(kept);
  else delete annotations[annotation];
  obj.metadata.annotations = annotations;
  if (Object.keys(annotations).length === 0) delete obj.metadata.annotations;
}

/** The fields {@link stashFields} kept, removing the annotation; undefined when there are none or it is not ours. */
export function takeStashedFields(obj: KubeObject, annotation: string): Record<string, unknown> | undefined {
  const text = obj.metadata.annotations?.[annotation];
  if (text === undefined) return undefined;
  const annotations = { ...obj.metadata.annotations };
  delete annotations[annotation];
  obj.metadata.annotations = annotations;
  if (Object.keys(annotations).length === 0) delete obj.metadata.annotations;
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined; // edited by hand into something else: the version's own fields win
  }
}
