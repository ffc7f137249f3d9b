import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { writeFileAtomic } from '../../../../kernel/files/atomic-write';
import { isRunningVerification, type RunningVerification } from '../../domain/sessions';

/**
 * A session's running verifications as files: `<data-dir>/sessions/<id>/running-<runId>.json`, one per command
 * running, written before the command starts (temp file, rename) and removed once its outcome is in the log —
 * so a server that was SIGKILLed leaves it for the next one. One file per run: writing and removing need no lock (the
 * session's may be held by the caller), and two servers' runs never overwrite each other's record.
 */
const PREFIX = 'running-';
const RUN_ID = /^[0-9A-Za-z-]{1,64}$/;

function fileOf(dir: string, runId: string): string {
  if (!RUN_ID.test(runId)) throw new Error(`not a run id: ${runId}`);
  return path.join(dir, `${PREFIX}${runId}.json`);
}

export async function readRunningVerifications(dir: string): Promise<RunningVerification[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: RunningVerification[] = [];
  for (const name of names) {
    if (!name.startsWith(PREFIX) || !name.endsWith('.json')) continue;
    try {
      const value: unknown = JSON.parse(await fs.readFile(path.join(dir, name), 'utf8'));
      // A foreign or damaged file is not trusted (the rename is atomic: the server never leaves a torn one).
      if (isRunningVerification(value) && name === `${PREFIX}${value.runId}.json`) out.push(value);
    } catch {
      // removed meanwhile, or not JSON
    }
  }
  return out;
}

/**
 * Written atomically (temp file, rename) but not fsynced: what it guards against is the server's death (SIGKILL, a
 * crash), which does not lose what the process wrote; a machine's crash ends its commands with it (the boot id says so).
 */
export async function writeRunningVerification(dir: string, run: RunningVerification): Promise<void> {
  await writeFileAtomic(fileOf(dir, run.runId), JSON.stringify(run), { sync: false });
}

export async function removeRunningVerification(dir: string, runId: string): Promise<void> {
  await fs.rm(fileOf(dir, runId), { force: true });
}
