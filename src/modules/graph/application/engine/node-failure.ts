import { WorkgraphError, isWorkgraphError } from '../../../../kernel/errors';
import type { CompiledNode } from './compiled-graph';
import { toExpressionError } from './jsonata-expression';

/**
 * What a failed node's run ends with: workgraph errors as they are; what a transform expression or a switch condition
 * threw as an ExpressionError naming node and expression (`branch` is the condition being evaluated); anything else
 * as an internal error naming the node.
 */
export function nodeFailure(err: unknown, cnode: CompiledNode, branch: number): WorkgraphError {
  if (isWorkgraphError(err)) return err;
  const nodeId = cnode.node.id;
  if (cnode.kind === 'transform') return toExpressionError(err, nodeId, cnode.expr.source, 'transform expression');
  const rule = cnode.kind === 'switch' ? cnode.branches[branch]?.rule : undefined;
  if (rule) return toExpressionError(err, nodeId, rule.varSources.join(' | '), `conditions[${branch}] rule`);
  return new WorkgraphError('internal_error', `node '${nodeId}': ${(err as Error)?.message ?? String(err)}`, { node: nodeId });
}
