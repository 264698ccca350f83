// The mark `olm install` puts on every object it creates, by which `olm uninstall` proves what it may delete.

/** Labels every object of an install; the value is the install's run id. */
export const OLM_INSTALL_LABEL = 'opkit.dev/olm-install';
/**
 * Names the install and the object it was made as: `{"run":…,"kind":…,"name":…,"namespace":…}`. A label
 * alone is easily copied with a manifest; only both, agreeing with the object they are on, count.
 */
export const OLM_INSTALL_RUN_ANNOTATION = 'opkit.dev/olm-install-run';

interface Header {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}

interface Marked {
  readonly metadata?: {
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}

/** The object with the install's label and annotation added. */
export function markedObject<T extends Header & { readonly metadata: object }>(object: T, run: string): T {
  const metadata = object.metadata as Marked['metadata'] & Header['metadata'];
  return {
    ...object,
    metadata: {
      ...object.metadata,
      labels: { ...metadata.labels, [OLM_INSTALL_LABEL]: run },
      annotations: {
        ...metadata.annotations,
        [OLM_INSTALL_RUN_ANNOTATION]: JSON.stringify({
          run,
          kind: object.kind,
          name: metadata.name,
          ...(metadata.namespace === undefined ? {} : { namespace: metadata.namespace }),
        }),
      },
    },
  };
}

/** Whether `found` (what the cluster holds for `object`) was created by an `olm install`. */
export function createdByOlmInstall(object: Header, found: Marked | undefined): boolean {
  const run = found?.metadata?.labels?.[OLM_INSTALL_LABEL];
  const annotation = found?.metadata?.annotations?.[OLM_INSTALL_RUN_ANNOTATION];
  if (!run || annotation === undefined) return false;
  let mark: Partial<Record<'run' | 'kind' | 'name' | 'namespace', unknown>> | null;
  try {
    mark = JSON.parse(annotation) as typeof mark;
  } catch {
    return false;
  }
  return (
    mark?.run === run &&
    mark.kind === object.kind &&
    mark.name === object.metadata.name &&
    mark.namespace === object.metadata.namespace
  );
}
