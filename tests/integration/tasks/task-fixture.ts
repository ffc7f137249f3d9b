import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { InvalidArgumentsError, PathNotAllowedError, UnsafePathError } from '../../../src/kernel/errors';
import { systemClock, systemTimers, type Clock } from '../../../src/kernel/clock';
import { silentLogger } from '../../../src/kernel/logger';
import type { PathPolicy } from '../../../src/kernel/path-policy';
import { ValidationRunRegistry } from '../../../src/modules/tasks/application/services/validation-run-registry';
import { ScaffoldProjectDocs } from '../../../src/modules/tasks/application/use-cases/scaffold-project-docs';
import { ValidationRunService, type RunVerdict } from '../../../src/modules/tasks/application/services/validation-run';
import { RandomIdGenerator } from '../../../src/kernel/random-id-generator';
import { LocalHostInfo } from '../../../src/modules/tasks/infrastructure/process/host-info';
import { ProjectLayout } from '../../../src/kernel/files/project-layout';
import { isInside } from '../../../src/kernel/files/safe-name';
import { ShellCommandRunner } from '../../../src/modules/tasks/infrastructure/process/shell-command-runner';
import { FileTaskGraphStore } from '../../../src/modules/tasks/infrastructure/file-task-graph-store';
import { taskUseCases } from '../../helpers/task-use-cases';
import { FsScaffoldFileWriter } from '../../../src/modules/tasks/infrastructure/fs-scaffold-file-writer';

/**
 * A real (small) PathPolicy for tests: allows folders inside the given roots after following symlinks — the same
 * contract as the server's policy, without MCP roots.
 */
export class RootsPathPolicy implements PathPolicy {
  constructor(private readonly roots: string[]) {}

  async allowedRoots(): Promise<string[]> {
    return Promise.all(this.roots.map((r) => fs.realpath(r)));
  }

  async resolveAllowedDirectory(p: string, field: string, opts: { mustExist?: boolean } = {}): Promise<string> {
    if (p.includes('\0')) throw new UnsafePathError(p, 'contains a NUL byte', field);
    const abs = path.resolve(p);
    let real: string;
    try {
      real = await fs.realpath(abs);
      if (!(await fs.stat(real)).isDirectory()) throw new InvalidArgumentsError(`${field}: '${p}' is not a directory`, field);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      if (opts.mustExist ?? true) throw new InvalidArgumentsError(`${field}: '${p}' does not exist`, field);
      real = path.join(await fs.realpath(path.dirname(abs)), path.basename(abs));
    }
    const roots = await this.allowedRoots();
    if (!roots.some((r) => isInside(r, real))) throw new PathNotAllowedError(p, roots, field);
    return real;
  }
}

/** Temp data dir + project folder, with every use case wired by hand (as the DI module does). */
export async function taskFixture(opts: { clock?: Clock; killGraceMs?: number; outputTailBytes?: number; claimTtlMs?: number } = {}) {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wg-tasks-')));
  const dataDir = path.join(base, 'data');
  const projectRoot = path.join(base, 'project');
  await fs.mkdir(projectRoot, { recursive: true });
  const clock = opts.clock ?? systemClock;
  const layout = new ProjectLayout(dataDir);
  const store = new FileTaskGraphStore(layout);
  const runner = new ShellCommandRunner(undefined, { killGraceMs: opts.killGraceMs ?? 500 });
  const runs = new ValidationRunRegistry<RunVerdict>();
  const host = new LocalHostInfo();
  const service = new ValidationRunService(
    { store, runner, runs, clock, timers: systemTimers, ids: new RandomIdGenerator(), host, logger: silentLogger },
    { outputTailBytes: opts.outputTailBytes },
  );
  const policy = new RootsPathPolicy([base]);
  const fx = {
    base,
    dataDir,
    projectRoot,
    layout,
    store,
    runner,
    runs,
    service,
    host,
    policy,
    ...taskUseCases({ store, clock, service, policy, host: host.host, claimTtlMs: opts.claimTtlMs }),
    scaffold: new ScaffoldProjectDocs(policy, new FsScaffoldFileWriter()),
    async cleanup() {
      runner.killAll();
      await fs.rm(base, { recursive: true, force: true });
    },
  };
  return fx;
}

export type TaskFixture = Awaited<ReturnType<typeof taskFixture>>;

export { isAlive } from '../../helpers/processes';

/** Polls `cond` every 25 ms until it holds or `timeoutMs` passes. */
export async function waitUntil(cond: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return cond();
}
