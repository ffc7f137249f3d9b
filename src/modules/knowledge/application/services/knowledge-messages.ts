/**
 * Every sentence the knowledge module's answers say to an agent (`message`, `warnings`), in one place, so the wording
 * stays consistent and each use case reads as steps rather than prose. Each message says what happened and, where
 * there is one, what to call next.
 */
export const KnowledgeMessages = {
  /** delete_nodes refused: other nodes descend from the ones to delete. */
  deleteRefused(dependents: number): string {
    return (
      `Nothing was deleted: ${dependents} node(s) depend on the nodes to delete. ` +
      'Call delete_nodes again with the dependent node ids included to delete them all.'
    );
  },

  /** The confirmation asked of the person (modern era, input_required) instead of refusing a delete with dependents. */
  confirmDeleteWithDependents(ids: readonly string[], dependents: readonly string[]): string {
    const shown = dependents.length > 10 ? `${dependents.slice(0, 10).join(', ')} and ${dependents.length - 10} more` : dependents.join(', ');
    return `Delete ${ids.join(', ')} and the ${dependents.length} node(s) that depend on them (${shown})? A backup is kept; restore_nodes brings them back.`;
  },

  deleteDeclined(dependents: number): string {
    return `Nothing was deleted: the deletion of the nodes and their ${dependents} dependent node(s) was not confirmed.`;
  },

  dependentsOf(nodeId: string, count: number): string {
    return `Node ${nodeId} has ${count} dependent node(s)`;
  },

  deleted(count: number): string {
    return `Deleted ${count} node(s); restore_nodes brings them back.`;
  },

  malformedLine(line: number, file: string, excerpt: string): string {
    return `Line ${line} of ${file} is malformed and was kept as it is: ${excerpt}`;
  },

  moreMalformedLines(count: number, file: string): string {
    return `${count} more malformed line(s) in ${file} were kept as they are`;
  },

  /** restore_nodes: parents that no longer exist were dropped from a restored node. */
  parentsDropped(nodeId: string, parents: readonly string[]): string {
    return `Node ${nodeId}: parent(s) ${parents.join(', ')} no longer exist and were dropped`;
  },

  /** A backup restored (the dashboard's and the CLI's restore): what came back and what was there already. */
  backupRestored(backupId: string, project: string, restored: number, alreadyPresent: number): string {
    return restored
      ? `Restored ${restored} node(s) of backup ${backupId} into project '${project}'; ${alreadyPresent} were there already.`
      : `Nothing to restore: every node of backup ${backupId} is in project '${project}' already.`;
  },

  summaryNotRecalculated(summaryId: string): string {
    return `Summary ${summaryId} summarizes deleted node(s); pass recalculateSummaries: true to recalculate it`;
  },

  summaryEmpty(summaryId: string): string {
    return `Summary ${summaryId} has no remaining nodes; it was kept unchanged`;
  },

  /** `fallback`: why MCP sampling was not used although the client offers it (empty when it was, or was not offered). */
  summaryRecalculated(summaryId: string, nodes: number, method: 'sampling' | 'extractive', fallback = ''): string {
    return `Summary ${summaryId} recalculated from ${nodes} node(s) by ${method === 'sampling' ? 'MCP sampling' : 'extractive summary'}${fallback}`;
  },

  samplingEmpty: ' (sampling returned no text)',

  samplingFailed(reason: string): string {
    return ` (sampling failed: ${reason})`;
  },

  summaryConflict(summaryId: string): string {
    return `Summary ${summaryId} changed or was removed while it was recalculated; it was left as it is`;
  },

  summaryFailed(summaryId: string, why: string): string {
    return `Summary ${summaryId} was not recalculated: ${why}`;
  },
} as const;
