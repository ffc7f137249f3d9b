import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';

/**
 * The environment variable that marks every process of one command: set on the shell, inherited by everything it
 * starts — including children that called `setsid` or were put in the background with their own group, which leave
 * the command's process group and so escape `kill(-pgid)`. At kill time `/proc/<pid>/environ` is scanned for it.
 */
export const COMMAND_MARKER_VAR = 'WORKGRAPH_COMMAND_ID';

/** One running command: its shell (leader of its own process group) and its marker value. */
export interface RunningCommand {
  child: ChildProcess;
  marker: string;
}

/** A fresh marker value for a command about to start. */
export function newCommandMarker(): string {
  return randomUUID();
}

/**
 * The children a command runner has running, so the server can kill every process tree on shutdown (end of stdin,
 * broken pipe, SIGTERM) instead of leaving validation commands behind.
 */
export class RunningCommands {
  private readonly commands = new Map<ChildProcess, string>();

  add(child: ChildProcess, marker: string): void {
    this.commands.set(child, marker);
  }

  delete(child: ChildProcess): void {
    this.commands.delete(child);
  }

  /** How many commands are running. */
  get size(): number {
    return this.commands.size;
  }

  /**
   * Sends `signal` (default SIGKILL) to every running command's whole tree. Synchronous, so it also works from a
   * signal handler just before an immediate exit.
   */
  killAll(signal: NodeJS.Signals = 'SIGKILL'): void {
    for (const [child, marker] of this.commands) killProcessTree({ child, marker }, signal);
  }
}

/**
 * Kills a command started with `detached: true` together with everything it started: its process group
 * (`kill(-pid)`) and, on Linux, every process whose environment carries the command's marker (setsid children,
 * background jobs in their own group). With SIGKILL the scan is repeated until no marked process is left, so a tree
 * that forks while being killed is still caught. Where /proc is unavailable (macOS) the group is the fallback.
 */
export function killProcessTree(cmd: RunningCommand, signal: NodeJS.Signals): void {
  const pid = cmd.child.pid;
  if (pid !== undefined) {
    try {
      process.kill(-pid, signal);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') {
        try {
          cmd.child.kill(signal);
        } catch {
          // already gone
        }
      }
    }
  }
  const rounds = signal === 'SIGKILL' ? 5 : 1;
  for (let i = 0; i < rounds; i++) {
    const marked = pidsWithMarker(cmd.marker);
    if (marked.length === 0) return;
    for (const p of marked) {
      try {
        process.kill(p, signal);
      } catch {
        // gone meanwhile, or not ours
      }
    }
  }
}

/**
 * Pids whose environment holds `WORKGRAPH_COMMAND_ID=<marker>` (Linux /proc; empty elsewhere). Processes of other
 * users cannot be read and are skipped; zombies have an empty environment and need no kill.
 */
export function pidsWithMarker(marker: string): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const needle = Buffer.from(`${COMMAND_MARKER_VAR}=${marker}\0`);
  const self = process.pid;
  const found: number[] = [];
  for (const name of entries) {
    const c = name.charCodeAt(0);
    if (c < 0x30 || c > 0x39) continue;
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === self) continue;
    let environ: Buffer;
    try {
      environ = fs.readFileSync(`/proc/${name}/environ`);
    } catch {
      continue;
    }
    if (environ.includes(needle)) found.push(pid);
  }
  return found;
}
