/**
 * Go error values as composed by Kubernetes' `utilerrors.NewAggregate`, so nested error lists print exactly as
 * upstream prints them (`[a, b]`, nested aggregates flattened, duplicates removed).
 */
export type GoError = string | { readonly aggregate: readonly GoError[] };

/** `utilerrors.NewAggregate`: `undefined` for an empty list. */
export function newAggregate(errors: readonly (GoError | undefined)[]): GoError | undefined {
  const list = errors.filter((e): e is GoError => e !== undefined);
  return list.length === 0 ? undefined : { aggregate: list };
}

/** `err.Error()`. */
export function goErrorText(error: GoError): string {
  if (typeof error === 'string') return error;
  const list = error.aggregate;
  if (list.length === 0) return '';
  if (list.length === 1) return goErrorText(list[0]!);
  const seen: string[] = [];
  const visit = (e: GoError) => {
    if (typeof e !== 'string') {
      for (const inner of e.aggregate) visit(inner);
      return;
    }
    if (!seen.includes(e)) seen.push(e);
  };
  for (const e of list) visit(e);
  return seen.length === 1 ? seen[0]! : `[${seen.join(', ')}]`;
}
