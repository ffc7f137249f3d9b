import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { container as root } from 'tsyringe';
import { Tokens } from '../../../src/kernel/tokens';
import { tasksModule, shutdownTasks } from '../../../src/modules/tasks/tasks.module';
import { systemClock } from '../../../src/kernel/clock';
import { silentLogger } from '../../../src/kernel/logger';
import type { AppConfig } from '../../../src/kernel/config/app-config';
import { tasksTools } from '../../../src/modules/tasks/tasks.tools';
import { Lifecycle } from '../../../src/kernel/lifecycle';
import { RootsPathPolicy } from './task-fixture';

describe('tasks DI module', () => {
  it('resolves every tool use case and runs a task end to end through the container', async () => {
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wg-tasks-di-')));
    try {
      const c = root.createChildContainer();
      c.register(Tokens.Clock, { useValue: systemClock });
      c.register(Tokens.Logger, { useValue: silentLogger });
      c.register(Tokens.PathPolicy, { useValue: new RootsPathPolicy([base]) });
      tasksModule(c, { dataDir: path.join(base, 'data') } as AppConfig);
      expect(tasksTools.map((t) => t.name)).toEqual([
        'init_project_graph', 'get_ready_tasks', 'get_project_graph', 'start_task', 'validate_task_loop', 'reset_task_node',
        'add_tasks', 'update_task', 'remove_tasks', 'split_task', 'claim_next_task', 'release_task', 'get_task_details', 'scaffold_project_docs',
      ]);
      for (const t of tasksTools) {
        expect(t.inputSchema.type).toBe('object');
        expect(t.outputSchema.type).toBe('object');
        expect(typeof (c.resolve(t.useCase!) as { execute: unknown }).execute).toBe('function');
      }
      const exec = (name: string, input: object) => (c.resolve(tasksTools.find((t) => t.name === name)!.useCase!) as any).execute(input);
      await exec('init_project_graph', { projectName: 'di', projectRoot: base, nodes: [{ id: 'a', title: 'A', validation_command: 'exit 0' }] });
      await exec('start_task', { project: 'di', nodeId: 'a' });
      expect((await exec('validate_task_loop', { project: 'di', nodeId: 'a' })).validation_passed).toBe(true);
      await shutdownTasks(c);
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  });

  it('server shutdown cancels a running validation: the task goes back to IN_PROGRESS', async () => {
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wg-tasks-di-')));
    try {
      const c = root.createChildContainer();
      const lifecycle = new Lifecycle();
      c.register(Tokens.Clock, { useValue: systemClock });
      c.register(Tokens.Logger, { useValue: silentLogger });
      c.register(Tokens.Lifecycle, { useValue: lifecycle });
      c.register(Tokens.PathPolicy, { useValue: new RootsPathPolicy([base]) });
      tasksModule(c, { dataDir: path.join(base, 'data') } as AppConfig);
      const exec = (name: string, input: object) => (c.resolve(tasksTools.find((t) => t.name === name)!.useCase!) as any).execute(input);
      await exec('init_project_graph', { projectName: 'sd', projectRoot: base, nodes: [{ id: 'a', title: 'A', validation_command: 'sleep 300' }] });
      await exec('start_task', { project: 'sd', nodeId: 'a' });
      expect(await exec('validate_task_loop', { project: 'sd', nodeId: 'a', waitSeconds: 0.1 })).toMatchObject({ running: true });
      await lifecycle.beginShutdown('test');
      const node = (await exec('get_project_graph', { project: 'sd' })).nodes[0];
      expect(node).toMatchObject({ status: 'IN_PROGRESS', current_attempt: 0 });
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  });
});
