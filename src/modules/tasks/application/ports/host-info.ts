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
}
