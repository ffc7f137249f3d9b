/**
 * A verification command the server is running for a session, recorded in the session's store before the command
 * starts and removed once its outcome is written: a server that dies mid-run (SIGKILL) leaves it behind, and the next
 * server that continues the session finds it, kills what is left of the command (its processes carry `runId` as
 * WORKGRAPH_COMMAND_ID) and records the attempt as interrupted. Pure data.
 */
export interface RunningVerification {
  /** The command's marker (WORKGRAPH_COMMAND_ID in its environment), also the verification_run event's `runId`. */
  runId: string;
  /** The session point whose current step is the verification step. */
  node: number;
  completionId: string;
  stepId: string;
  parentStepId: string;
  command: string;
  cwd: string;
  timeoutMs?: number;
  /** ISO time the command was started. */
  startedAt: string;
  /** The server process running it (host, boot, pid and its start time). */
  owner: { host: string; bootId: string | null; pid: number; startTicks: number | null };
  /** The command's shell, leader of its own process group (recorded once it started). */
  pgid?: number;
}

/** Whether a parsed value has the shape of a running record (a torn or foreign file is ignored, not trusted). */
export function isRunningVerification(v: unknown): v is RunningVerification {
  if (!v || typeof v !== 'object') return false;
  const r = v as Partial<RunningVerification>;
  return typeof r.runId === 'string' && typeof r.node === 'number' && typeof r.completionId === 'string' && typeof r.command === 'string' && typeof r.startedAt === 'string' && !!r.owner && typeof r.owner.pid === 'number';
}
