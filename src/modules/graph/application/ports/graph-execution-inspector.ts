import type { NodeExecutionRecord } from '../../domain/types';

/** A recent graph run as the inspector sees it (the fields of the engine's execution state it reports). */
export interface InspectedExecution {
  executionId: string;
  tool: string;
  status: string;
  currentNodeId: string | null;
  executionCount: number;
  startTime: number;
  endTime?: number;
  history: readonly NodeExecutionRecord[];
  result?: unknown;
  error?: unknown;
  /** Who ran it (its identity's name and client), when known. */
  actor?: { name: string; client?: string };
}

/** Read access to recent graph runs (GraphHost implements it). Each method throws NotFoundError for unknown ids. */
export interface GraphExecutionInspector {
  getExecutionState(executionId: string): InspectedExecution;
  getContextForExecution(executionId: string, executionIndex: number): Record<string, unknown>;
  getExecutionByIndex(executionId: string, executionIndex: number): NodeExecutionRecord;
}
