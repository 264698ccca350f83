import { isRecord } from '../manifest/manifest.js';
import { type FieldError, fieldForbidden, fieldInvalid, fieldRequired } from './field-error.js';
import { isLabelValue, isQualifiedName } from './k8s-names.js';

/** Total size limit of all annotations of an object (256 KiB). */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function stringMap(value: unknown): [string, string][] {
  if (!isRecord(value)) return [];
  return Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : String(v)]);
}

/**
 * apimachinery `ValidateObjectMetaAccessor(meta, requiresNamespace, nameFn, "metadata")` for the parts a
 * manifest can get wrong: name presence (and `nameFn` findings), namespace, generation, labels and
 * annotations. Owner references, finalizers and managed fields are not checked.
 */
export function validateObjectMeta(
  metadata: unknown,
  options: { requiresNamespace: boolean; nameFn?: (name: string) => string[] },
): FieldError[] {
  const meta = isRecord(metadata) ? metadata : {};
  const errs: FieldError[] = [];
  const nameFn = options.nameFn ?? (() => []);
  const generateName = typeof meta.generateName === 'string' ? meta.generateName : '';
  if (generateName.length > 0) {
    for (const msg of nameFn(generateName))
      errs.push(fieldInvalid('metadata.generateName', generateName, msg));
  }
  const name = typeof meta.name === 'string' ? meta.name : '';
  if (name.length === 0) {
    errs.push(fieldRequired('metadata.name', 'name or generateName is required'));
  } else {
    for (const msg of nameFn(name)) errs.push(fieldInvalid('metadata.name', name, msg));
  }
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  if (options.requiresNamespace) {
    if (namespace.length === 0) errs.push(fieldRequired('metadata.namespace', ''));
  } else if (namespace.length > 0) {
    errs.push(fieldForbidden('metadata.namespace', 'not allowed on this type'));
  }
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    errs.push(fieldInvalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  }
  for (const [key, value] of stringMap(meta.labels)) {
    for (const msg of isQualifiedName(key)) errs.push(fieldInvalid('metadata.labels', key, msg));
    for (const msg of isLabelValue(value)) errs.push(fieldInvalid('metadata.labels', value, msg));
  }
  let annotationsSize = 0;
  for (const [key, value] of stringMap(meta.annotations)) {
    for (const msg of isQualifiedName(key.toLowerCase()))
      errs.push(fieldInvalid('metadata.annotations', key, msg));
    annotationsSize += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (annotationsSize > TOTAL_ANNOTATION_SIZE_LIMIT) {
    errs.push({
      type: 'FieldValueTooLong',
      field: 'metadata.annotations',
      goValue: '<value omitted>',
      detail: `may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`,
    });
  }
  return errs;
}
