import { inject, injectable } from 'tsyringe';
import { NotFoundError } from '../../../../kernel/errors';
import type { UseCase } from '../../../../kernel/use-case';
import { contextBefore, inputOf } from '../../domain/graph-run-record';
import type { NodeExecutionRecord } from '../../domain/types';
import { GraphTokens } from '../graph.tokens';
import type { GraphRunStore } from '../ports/graph-run-store';

export interface GraphRunExecutionView {
  execution: NodeExecutionRecord;
  /** What the node received: the previous node's output (the tool's arguments for the first node). */
  input: unknown;
  /** The context it saw: the latest output of every node that ran before it. */
  context: Record<string, unknown>;
}

/** Time travel over a recorded run: one node execution with its input and the context it saw. */
@injectable()
export class GetGraphRunExecution implements UseCase<{ runId: string; executionIndex: number }, GraphRunExecutionView> {
  constructor(@inject(GraphTokens.GraphRunStore) private readonly store: GraphRunStore) {}

  async execute(input: { runId: string; executionIndex: number }): Promise<GraphRunExecutionView> {
    const record = await this.store.get(input.runId);
    const execution = record.executions.find((e) => e.executionIndex === input.executionIndex);
    if (!execution) {
      throw new NotFoundError('node execution', String(input.executionIndex), `run '${input.runId}' has no recorded node execution ${input.executionIndex}${record.truncated ? ' (only its last executions were recorded)' : ''}`);
    }
    return { execution, input: inputOf(record, input.executionIndex), context: contextBefore(record.executions, input.executionIndex) };
  }
}
