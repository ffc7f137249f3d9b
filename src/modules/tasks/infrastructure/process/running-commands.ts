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

/** The process group of `pid` (field 5 of /proc/<pid>/stat), undefined when it cannot be read. */
function groupOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pgrp = Number(fields[2]);
    return Number.isInteger(pgrp) ? pgrp : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Kills what is left of a command whose runner died (a server SIGKILLed mid-validation): every process carrying
 * `marker`, and the process group `pgid` while one of its members still carries the marker (a group id is not reused
 * while the group has members, so this never hits a stranger's group), until none is left (a tree that forks while
 * being killed is caught by the next round), then waits (at most `waitMs`) until each is gone — a SIGKILL is
 * delivered asynchronously, and the task must not run again while its old command still does. Returns how many
 * processes were found.
 */
export function killOrphanedTree(marker: string, pgid?: number, waitMs = 5_000): number {
  const killed = new Set<number>();
  for (let round = 0; round < 10; round++) {
    const marked = pidsWithMarker(marker);
    if (marked.length === 0) break;
    for (const p of marked) killed.add(p);
    if (pgid && pgid > 1 && marked.some((p) => groupOf(p) === pgid)) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    for (const p of marked) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone meanwhile, or not ours
      }
    }
  }
  const deadline = Date.now() + waitMs;
  let left = [...killed];
  while ((left = left.filter(running)).length > 0 && Date.now() < deadline) sleepSync(10);
  return killed.size;
}

/** Whether `pid` still runs (a zombie has ended: it only waits to be reaped). */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return false;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
