import type { ChildProcess } from 'node:child_process';

/**
 * The children a command runner has running, so the server can kill every process tree on shutdown (end of stdin,
 * broken pipe, SIGTERM) instead of leaving validation commands behind.
 */
export class RunningCommands {
  private readonly children = new Set<ChildProcess>();

  add(child: ChildProcess): void {
    this.children.add(child);
  }

  delete(child: ChildProcess): void {
    this.children.delete(child);
  }

  /** How many commands are running. */
  get size(): number {
    return this.children.size;
  }

  /**
   * Sends `signal` (default SIGKILL) to every running command's whole process group. Synchronous, so it also works
   * from a `process.on('exit')` handler.
   */
  killAll(signal: NodeJS.Signals = 'SIGKILL'): void {
    for (const child of this.children) killProcessTree(child, signal);
  }
}

/**
 * Kills a child started with `detached: true` together with everything it started: the child leads its own process
 * group, so `process.kill(-pid)` reaches the whole tree. Falls back to the child alone where groups are unavailable.
 */
export function killProcessTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return;
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}
