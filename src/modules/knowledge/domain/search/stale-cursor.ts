import { InvalidArgumentsError } from '../../../../kernel/errors';

/**
 * The answer to a search_nodes cursor whose search can no longer be continued truthfully: the graph was rewritten
 * below the first page's watermark (a delete, a restore, a summary recalculation), or the cursor is of an older
 * server's format. Both stores and the several-projects cursor give this one error, so a client handles it once.
 */
export function staleSearchCursorError(): InvalidArgumentsError {
  return new InvalidArgumentsError(
    'cursor: the knowledge graph was rewritten (nodes deleted, summaries recalculated) since this search began; search again without a cursor',
    'cursor',
  );
}
