/** Stable machine-readable codes of the errors thrown by the upgrade-graph module. */
export type GraphErrorCode =
  | 'GRAPH_UNKNOWN_PACKAGE'
  | 'GRAPH_UNKNOWN_CHANNEL'
  | 'GRAPH_INVALID_VERSION'
  | 'GRAPH_AMBIGUOUS_INSTALLED'
  | 'GRAPH_NO_CHANNEL_HEAD'
  | 'GRAPH_REPLACES_CYCLE'
  | 'GRAPH_MULTIPLE_CHAINS';

/**
 * An upgrade graph could not be built or resolved. For `GRAPH_NO_CHANNEL_HEAD`, `GRAPH_REPLACES_CYCLE` and
 * `GRAPH_MULTIPLE_CHAINS` the message is OLM's resolver message verbatim (OLM then fails the subscription).
 */
export class GraphError extends Error {
  /** Stable error code. */
  readonly code: GraphErrorCode;

  constructor(code: GraphErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = 'GraphError';
  }
}
