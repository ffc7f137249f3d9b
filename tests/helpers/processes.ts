import * as fs from 'node:fs';

/**
 * True while the process exists and is not a zombie waiting to be reaped (a killed child whose parent has not
 * collected it yet is gone for every purpose a test checks).
 */
export function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
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

/** Polls until the process is gone or `timeoutMs` (a generous liveness bound, not a speed figure) passes. */
export async function waitUntilGone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !isAlive(pid);
}

/** The live (non-zombie) processes whose process group is `pgid` (Linux /proc). */
export function groupMembers(pgid: number): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Polls until `file` holds a number (a pid a test's command wrote) and answers it; throws after `timeoutMs`. */
export async function fileNumber(file: string, timeoutMs = 20_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
    if (/^\d+$/.test(text)) return Number(text);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${file} was not written`);
}
