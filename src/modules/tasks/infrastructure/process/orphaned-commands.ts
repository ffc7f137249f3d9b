import * as fs from 'node:fs';
import type { CommandOwner, OrphanedCommands } from '../../../../kernel/command-runner';
import type { LocalHostInfo } from './host-info';
import { killOrphanedTree } from './running-commands';

/**
 * The kernel's OrphanedCommands on this host: the owner facts of LocalHostInfo plus the start time of a pid (field 22
 * of /proc/<pid>/stat), and the kill of a dead owner's command by its marker (killOrphanedTree, as for a validation
 * run whose server died).
 */
export class LocalOrphanedCommands implements OrphanedCommands {
  private readonly self: CommandOwner;

  constructor(private readonly host: LocalHostInfo) {
    this.self = { host: host.host, bootId: host.bootId, pid: host.pid, startTicks: startTicksOf(host.pid) };
  }

  owner(): CommandOwner {
    return this.self;
  }

  ownerAlive(owner: CommandOwner): boolean | undefined {
    if (owner.host !== this.self.host) return undefined;
    if (owner.bootId && this.self.bootId && owner.bootId !== this.self.bootId) return false;
    if (!this.host.isAlive(owner.pid)) return false;
    // The pid runs, but is it still that process? A start time that differs is a reused pid.
    const ticks = startTicksOf(owner.pid);
    return owner.startTicks === null || ticks === null || ticks === owner.startTicks;
  }

  stop(marker: string, pgid?: number): number {
    return killOrphanedTree(marker, pgid);
  }
}

/** The start time of `pid` in clock ticks since boot (Linux), null where /proc cannot tell. */
export function startTicksOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the command name start at field 3 (state): starttime, field 22, is index 19.
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
}
