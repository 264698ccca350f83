import { goJsonMarshal } from '../go-compat/go-json.js';

/**
 * A JSON value as opm serves it: compact, without HTML escaping, object keys sorted (opm reads every catalog
 * document through a YAML-to-JSON conversion that sorts them) — except Go structs, given as `Map`s, whose keys
 * keep their order.
 */
export function compactJson(value: unknown): string {
  return goJsonMarshal(value, { escapeHtml: false });
}
