/**
 * The command runner port: the one way the server runs shell commands (task validations, workflow verification
 * steps). The tasks module implements it (infrastructure/process/shell-command-runner.ts) and registers its one
 * instance under `Tokens.CommandRunner`; the workflow module runs its verification commands through the same
 * instance, so every process tree is tracked and killed on shutdown in one place. Types only.
 */

/** Output cap per stream: 64 KiB, the tail is kept. */
export const DEFAULT_OUTPUT_CAP_BYTES = 64 * 1024;

export interface CommandRequest {
  /** A shell command line (run with the platform shell, `/bin/sh -c` on Linux and macOS). */
  command: string;
  /** Working directory. */
  cwd: string;
  /** Kill the whole process tree after this many milliseconds. */
  timeoutMs: number;
  /** Aborting kills the whole process tree; the result then has `cancelled: true`. */
  signal?: AbortSignal;
  /** Called with the latest non-empty output line (stdout or stderr) as output arrives. */
  onOutput?: (lastLine: string) => void;
  /** Bytes kept per stream (the tail). Default {@link DEFAULT_OUTPUT_CAP_BYTES}. */
  maxOutputBytes?: number;
  /** The value of WORKGRAPH_COMMAND_ID in the command's environment (a validation run passes its run id); default a fresh id. */
  marker?: string;
  /** Called once the command's process started, with its pid (the leader of the command's process group). */
  onStarted?: (pid: number) => void;
}

export interface CommandResult {
  /** Exit code, or null when the process was ended by a signal. */
  exitCode: number | null;
  /** The signal that ended the process (`SIGTERM`, `SIGKILL`), or null. */
  signal: string | null;
  durationMs: number;
  /** The tail of stdout (UTF-8, invalid bytes replaced). */
  stdout: string;
  /** The tail of stderr. */
  stderr: string;
  /** True when either stream was longer than the cap and only its tail is kept. */
  truncated: boolean;
  /** True when the run hit `timeoutMs` and was killed. */
  timedOut: boolean;
  /** True when the run was killed because `signal` was aborted. */
  cancelled: boolean;
}

/**
 * Runs shell commands. The environment a command gets is the server's own environment (documented in
 * docs/tasks.md); output is captured with a cap and never held unbounded in memory.
 */
export interface CommandRunner {
  /**
   * Runs `command` to its end, timeout or cancellation. A non-zero exit is a result, not an error.
   * @throws CommandFailedError when the command cannot be started at all (e.g. `cwd` missing).
   */
  run(request: CommandRequest): Promise<CommandResult>;
}

/**
 * The server process that runs a command, as recorded beside a command that must be found again if that process dies
 * (a workflow verification's running record): its host, the host's boot, its pid and the pid's start time (so a
 * reused pid is not taken for it).
 */
export interface CommandOwner {
  host: string;
  /** Linux `/proc/sys/kernel/random/boot_id`; null where there is none. */
  bootId: string | null;
  pid: number;
  /** Field 22 of `/proc/<pid>/stat` (clock ticks since boot), null where it cannot be read. */
  startTicks: number | null;
}

/**
 * What a dead server's commands left behind, found and ended by the next server (the tasks module implements it
 * beside its runner and registers it under `Tokens.OrphanedCommands`). A command's processes are recognised by the
 * marker in their environment (`WORKGRAPH_COMMAND_ID`, {@link CommandRequest.marker}): only those are ever killed.
 */
export interface OrphanedCommands {
  /** This process, as a command's owner. */
  owner(): CommandOwner;
  /**
   * Whether `owner` still runs: false when it ran on this host and its boot is over, its pid is gone or is another
   * process now (start time); true when it runs; undefined when it ran on another host (it cannot be told from here).
   */
  ownerAlive(owner: CommandOwner): boolean | undefined;
  /**
   * Kills (SIGKILL) every process carrying `marker`, and the process group `pgid` while one of its members carries it,
   * then waits a moment until they are gone. Returns how many processes were found. Synchronous.
   */
  stop(marker: string, pgid?: number): number;
}
