import type { GroupVersionKind, KubeObject } from '../object.js';
import { jsonPatch } from './json-patch.js';
import { BadRequestError, isRecord } from './request.js';
import type { SchemaValidator } from './schema-validator.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** The parts of an `admission.k8s.io/v1` AdmissionRequest a webhook decides on. */
export interface AdmissionRequest<T extends KubeObject = KubeObject> {
  readonly uid: string;
  readonly kind: GroupVersionKind;
  readonly operation: AdmissionOperation;
  readonly name?: string;
  readonly namespace?: string;
  readonly subResource?: string;
  readonly userInfo?: { readonly username?: string; readonly groups?: readonly string[] };
  readonly dryRun?: boolean;
  /** The object after the operation (absent for DELETE). */
  readonly object?: T;
  /** The object before the operation (UPDATE and DELETE). */
  readonly oldObject?: T;
}

/** A `metav1.Status` as admission responses carry it. */
export interface AdmissionStatus {
  readonly code: number;
  readonly reason: string;
  readonly message: string;
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly causes?: readonly {
      readonly reason: string;
      readonly message: string;
      readonly field: string;
    }[];
  };
}

export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: AdmissionStatus;
  /** Base64 of a JSON Patch. */
  readonly patch?: string;
  readonly patchType?: 'JSONPatch';
  readonly warnings?: readonly string[];
}

export interface AdmissionReview {
  readonly apiVersion: string;
  readonly kind: 'AdmissionReview';
  readonly request?: AdmissionRequest;
  readonly response?: AdmissionResponse;
}

/** Warnings a validator returns; `kubectl` prints each as `Warning: …`. */
export type Warnings = readonly string[];

/**
 * Sets defaults on the object in place (it is a copy); the webhook answers with the JSON Patch of the change.
 * Throw to refuse the request (an {@link AdmissionDenied} chooses the status). `signal` aborts at the request's
 * deadline and when the API server goes away: pass it to any call that waits. The webhook's handlers always
 * give it; it is optional so that tests may call a hook without one.
 */
export type Defaulter<T extends KubeObject> = (
  obj: T,
  request: AdmissionRequest<T>,
  signal?: AbortSignal,
) => void | Promise<void>;

/**
 * Checks creates, updates and deletes of a kind: return warnings (or nothing) to allow, throw to refuse.
 * Each method is optional; a missing one allows. `signal` as for a {@link Defaulter}.
 */
export interface Validator<T extends KubeObject> {
  validateCreate?(
    obj: T,
    request: AdmissionRequest<T>,
    signal?: AbortSignal,
  ): Warnings | undefined | Promise<Warnings | undefined>;
  validateUpdate?(
    oldObj: T,
    obj: T,
    request: AdmissionRequest<T>,
    signal?: AbortSignal,
  ): Warnings | undefined | Promise<Warnings | undefined>;
  validateDelete?(
    obj: T,
    request: AdmissionRequest<T>,
    signal?: AbortSignal,
  ): Warnings | undefined | Promise<Warnings | undefined>;
}

/** One invalid field, as Kubernetes' field errors name them. */
export interface FieldProblem {
  /** Path such as `spec.replicas` or `spec.port.number`. */
  readonly field: string;
  readonly message: string;
  /** The offending value, quoted in the message as the API server quotes it; omit for a missing field. */
  readonly value?: unknown;
  /** @default 'Invalid' with a value, 'Required' without */
  readonly type?: 'Invalid' | 'Required' | 'Forbidden';
}

/** A refusal with the status the API server passes on to the client. */
export class AdmissionDenied extends Error {
  readonly code = 'RUNTIME_ADMISSION_DENIED';
  constructor(readonly status: AdmissionStatus) {
    super(status.message);
    this.name = 'AdmissionDenied';
  }
}

const CAUSE_REASON = {
  Invalid: 'FieldValueInvalid',
  Required: 'FieldValueRequired',
  Forbidden: 'FieldValueForbidden',
};

function problemBody(p: FieldProblem): string {
  const type = p.type ?? (p.value === undefined ? 'Required' : 'Invalid');
  if (type === 'Invalid') return `Invalid value: ${JSON.stringify(p.value)}: ${p.message}`;
  return `${type === 'Required' ? 'Required value' : 'Forbidden'}: ${p.message}`;
}

/**
 * The refusal Kubernetes' own validation gives (422 Invalid, `Kind.group "name" is invalid: field: …`, one
 * cause per field), so clients and `kubectl` show it the same way.
 */
export function invalidObject(obj: KubeObject, problems: readonly FieldProblem[]): AdmissionDenied {
  const apiVersion = obj.apiVersion ?? '';
  const group = apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
  const qualified = group ? `${obj.kind}.${group}` : obj.kind;
  const lines = problems.map((p) => `${p.field}: ${problemBody(p)}`);
  const listed = lines.length === 1 ? lines[0] : `[${lines.join(', ')}]`;
  return new AdmissionDenied({
    code: 422,
    reason: 'Invalid',
    message: `${qualified} "${obj.metadata.name ?? ''}" is invalid: ${listed}`,
    details: {
      name: obj.metadata.name,
      group,
      kind: obj.kind,
      causes: problems.map((p) => ({
        reason: CAUSE_REASON[p.type ?? (p.value === undefined ? 'Required' : 'Invalid')],
        message: problemBody(p),
        field: p.field,
      })),
    },
  });
}

function denial(uid: string, error: unknown, warnings?: Warnings): AdmissionResponse {
  const status: AdmissionStatus =
    error instanceof AdmissionDenied
      ? error.status
      : // controller-runtime's admission.Denied: any other error is a 403 with its message.
        { code: 403, reason: 'Forbidden', message: error instanceof Error ? error.message : String(error) };
  return { uid, allowed: false, status, ...(warnings?.length ? { warnings } : {}) };
}

const OPERATIONS: ReadonlySet<string> = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

/** The request of an AdmissionReview (v1 or v1beta1, which share the shape), or a BadRequestError. */
export function admissionRequestOf(review: unknown): { apiVersion: string; request: AdmissionRequest } {
  if (!isRecord(review) || review.kind !== 'AdmissionReview') {
    throw new BadRequestError('expected an AdmissionReview');
  }
  const apiVersion = review.apiVersion;
  if (apiVersion !== 'admission.k8s.io/v1' && apiVersion !== 'admission.k8s.io/v1beta1') {
    throw new BadRequestError(`unsupported AdmissionReview apiVersion ${JSON.stringify(apiVersion)}`);
  }
  const request = review.request;
  if (!isRecord(request) || typeof request.uid !== 'string' || request.uid === '') {
    throw new BadRequestError('AdmissionReview has no request.uid');
  }
  if (typeof request.operation !== 'string' || !OPERATIONS.has(request.operation)) {
    throw new BadRequestError(
      `AdmissionReview has an unknown request.operation ${JSON.stringify(request.operation)}`,
    );
  }
  for (const field of ['object', 'oldObject'] as const) {
    const obj = request[field];
    if (obj !== undefined && obj !== null && !isKubeObject(obj)) {
      throw new BadRequestError(`AdmissionReview request.${field} is not a Kubernetes object`);
    }
  }
  const normal = {
    ...request,
    object: request.object ?? undefined,
    oldObject: request.oldObject ?? undefined,
  };
  return { apiVersion, request: normal as unknown as AdmissionRequest };
}

function isKubeObject(v: unknown): v is KubeObject {
  return (
    isRecord(v) && typeof v.apiVersion === 'string' && typeof v.kind === 'string' && isRecord(v.metadata)
  );
}

/** Answers an AdmissionReview; `signal` (the webhook server's, never aborting when absent) reaches the hooks. */
export type AdmissionHandler = (review: unknown, signal?: AbortSignal) => Promise<AdmissionReview>;

const NEVER_ABORTED = new AbortController().signal;

/**
 * Objects the webhook does not understand are left to the API server: a mutating webhook runs before the
 * CRD's schema is checked, so an object that does not match it gets no defaults and the API server's own
 * validation names what is wrong.
 */
function matches<T extends KubeObject>(schema: SchemaValidator | undefined, obj: KubeObject): obj is T {
  return schema === undefined || schema(obj).length === 0;
}

/** Answers in the AdmissionReview version the request came in. */
const replyIn =
  (apiVersion: string) =>
  (response: AdmissionResponse): AdmissionReview => ({ apiVersion, kind: 'AdmissionReview', response });

/** The handler of a mutating webhook: runs the defaulter on CREATE and UPDATE and answers with its patch. */
export function defaultingHandler<T extends KubeObject>(
  defaulter: Defaulter<T>,
  schema?: SchemaValidator,
): AdmissionHandler {
  return async (review, signal = NEVER_ABORTED) => {
    const { apiVersion, request } = admissionRequestOf(review);
    const reply = replyIn(apiVersion);
    const obj = request.object;
    if ((request.operation !== 'CREATE' && request.operation !== 'UPDATE') || !obj || !matches(schema, obj)) {
      return reply({ uid: request.uid, allowed: true });
    }
    const copy = structuredClone(obj);
    try {
      await defaulter(copy as T, request as AdmissionRequest<T>, signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason; // answered already, by the server, as a deadline or a client gone
      return reply(denial(request.uid, error));
    }
    const ops = jsonPatch(obj, copy);
    if (ops.length === 0) return reply({ uid: request.uid, allowed: true });
    return reply({
      uid: request.uid,
      allowed: true,
      patchType: 'JSONPatch',
      patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
    });
  };
}

/** The handler of a validating webhook: the validator's method for the operation decides. */
export function validatingHandler<T extends KubeObject>(
  validator: Validator<T>,
  schema?: SchemaValidator,
): AdmissionHandler {
  return async (review, signal = NEVER_ABORTED) => {
    const { apiVersion, request } = admissionRequestOf(review);
    const reply = replyIn(apiVersion);
    const typed = request as AdmissionRequest<T>;
    const { object: obj, oldObject: old } = request;
    let warnings: Warnings | undefined;
    try {
      if (request.operation === 'CREATE' && obj) {
        if (!matches(schema, obj)) throw schemaDenial(schema, obj);
        warnings = await validator.validateCreate?.(obj as T, typed, signal);
      } else if (request.operation === 'UPDATE' && obj && old) {
        if (!matches(schema, obj)) throw schemaDenial(schema, obj);
        warnings = await validator.validateUpdate?.(old as T, obj as T, typed, signal);
      } else if (request.operation === 'DELETE' && old) {
        warnings = await validator.validateDelete?.(old as T, typed, signal);
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason; // answered already, by the server, as a deadline or a client gone
      return reply(denial(request.uid, error));
    }
    return reply({ uid: request.uid, allowed: true, ...(warnings?.length ? { warnings } : {}) });
  };
}

function schemaDenial(schema: SchemaValidator | undefined, obj: KubeObject): AdmissionDenied {
  return invalidObject(
    obj,
    (schema?.(obj) ?? []).map((p) => ({ field: p.field, message: p.message, type: 'Forbidden' as const })),
  );
}
