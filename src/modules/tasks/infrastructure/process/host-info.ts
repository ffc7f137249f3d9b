import * as fs from 'node:fs';
import * as os from 'node:os';
import type { HostInfo } from '../../application/ports/host-info';
import type { RunLease } from '../../domain';
import { killOrphanedTree } from './running-commands';

const BOOT_ID_FILE = '/proc/sys/kernel/random/boot_id';

/** This process and host, for validation run leases: host name, Linux boot id (read once), pid, liveness by pid. */
export class LocalHostInfo implements HostInfo {
  readonly host = os.hostname();
  readonly bootId = readBootId();
  readonly pid = process.pid;

  stopRun(lease: RunLease): number {
    return killOrphanedTree(lease.run_id, lease.pgid);
  }

  /** Alive unless the process is missing or a zombie (`/proc/<pid>/stat` state Z); `kill(pid, 0)` where there is no /proc. */
  isAlive(pid: number): boolean {
    if (!Number.isInteger(pid) || pid <= 0) return false;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
    } catch {
      if (fs.existsSync('/proc/self')) return false;
      try {
        process.kill(pid, 0);
        return true;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
  }
}

function readBootId(): string | null {
  try {
    return fs.readFileSync(BOOT_ID_FILE, 'utf8').trim() || null;
  } catch {
    return null;
  }
}
