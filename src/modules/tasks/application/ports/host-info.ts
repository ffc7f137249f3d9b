import type { RunLease } from '../../domain';

/**
 * Facts about this server process and its host that decide whether a validation run's owner is still there (see
 * the run lease in domain/tasks/run-lease.ts).
 */
export interface HostInfo {
  /** Host name. */
  readonly host: string;
  /** This boot's id (Linux `/proc/sys/kernel/random/boot_id`), null where there is none. */
  readonly bootId: string | null;
  /** This process's pid. */
  readonly pid: number;
  /** Whether a process with `pid` runs on this host (a zombie counts as gone). */
  isAlive(pid: number): boolean;
  /**
   * Kills (SIGKILL) what is left on this host of a run whose owner is gone: every process carrying the run's id in
   * WORKGRAPH_COMMAND_ID, and the run's process group while a member of it still carries that id. Returns how many
   * processes were found. Synchronous: called under the project's lock, right before the run is taken over.
   */
  stopRun(lease: RunLease): number;
}
