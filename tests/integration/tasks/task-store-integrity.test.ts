import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { StorageError } from '../../../src/kernel/errors';
import { appendFully } from '../../../src/kernel/files/write-fully';
import { TASK_FILES_MIGRATION } from '../../../src/modules/tasks/infrastructure/task-file-migration';
import { taskFixture, type TaskFixture } from './task-fixture';

let fx: TaskFixture;
beforeEach(async () => {
  fx = await taskFixture();
  await fx.init.execute({ projectName: 'store', projectRoot: fx.projectRoot, nodes: [{ id: 'a', title: 'A' }, { id: 'b', title: 'B' }] });
});
afterEach(async () => {
  await fx.cleanup();
});

const graphFile = () => fx.store.graphFile('store');
const logFile = () => fx.store.transitionsFile('store');

describe('file task graph store: the graph file is the commit point', () => {
  it('records the log length that belongs to each revision', async () => {
    await fx.start.execute({ project: 'store', nodeId: 'a' });
    const doc = JSON.parse(await fs.readFile(graphFile(), 'utf8'));
    expect(doc.schema_version).toBe(2);
    expect(doc.transition_log_bytes).toBe((await fs.stat(logFile())).size);
  });

  it('log bytes past the recorded length (a crash before the graph was written) are not read and are cut by the next write', async () => {
    const committed = (await fs.stat(logFile())).size;
    await fs.appendFile(logFile(), JSON.stringify({ from: 'READY', to: 'IN_PROGRESS', node: 'a', time: new Date().toISOString(), attempt: 1 }) + '\n');
    expect((await fx.store.readTransitions('store')).filter((t) => t.from !== t.to)).toEqual([]);
    await fx.start.execute({ project: 'store', nodeId: 'b' });
    const moves = (await fx.store.readTransitions('store')).filter((t) => t.from !== t.to).map((t) => `${t.node}:${t.from}>${t.to}`);
    expect(moves).toEqual(['b:READY>IN_PROGRESS']);
    expect((await fs.readFile(logFile(), 'utf8')).length).toBeGreaterThan(committed);
  });

  it('a torn line is skipped and reported; the next append starts on a fresh line', async () => {
    // A log from before the recorded length existed: remove it from the graph file.
    const doc = JSON.parse(await fs.readFile(graphFile(), 'utf8'));
    delete doc.transition_log_bytes;
    await fs.writeFile(graphFile(), JSON.stringify(doc));
    await fs.appendFile(logFile(), '{"from":"READY","to":"IN_');
    await fx.start.execute({ project: 'store', nodeId: 'a' });
    const contents = await fx.store.readTransitionLog('store');
    expect(contents.torn).toEqual([{ line: 3, preview: '{"from":"READY","to":"IN_' }]);
    expect(contents.transitions.at(-1)).toMatchObject({ node: 'a', from: 'READY', to: 'IN_PROGRESS' });
  });

  it('an unwritable log (a folder in its place) fails the change with storage_error and leaves the graph as it was', async () => {
    const before = await fs.readFile(graphFile(), 'utf8');
    await fs.rm(logFile());
    await fs.mkdir(logFile());
    await expect(fx.start.execute({ project: 'store', nodeId: 'a' })).rejects.toThrow(StorageError);
    await expect(fx.start.execute({ project: 'store', nodeId: 'a' })).rejects.toThrow(/cannot append to the transition log .*transitions\.ndjson: it is a folder, not a file \(EISDIR\); nothing was changed/);
    expect(await fs.readFile(graphFile(), 'utf8')).toBe(before);
  });
});

describe('appendFully', () => {
  it('appends every byte and reports the lengths and the file identity after the append', async () => {
    const f = path.join(fx.base, 'append.txt');
    await fs.writeFile(f, 'abc');
    const appended = await appendFully(f, 'défg');
    const st = await fs.stat(f);
    expect(appended).toEqual({ before: 3, after: 3 + Buffer.byteLength('défg'), ino: st.ino, mtimeMs: st.mtimeMs });
    expect(await fs.readFile(f, 'utf8')).toBe('abcdéfg');
  });
});

describe('the task files migration step (format 1 → 2)', () => {
  it('upgrades every project of a copy of a format 1 data dir, once; the records moved out are in the log', async () => {
    const data = path.join(fx.base, 'old-data');
    await fs.cp(path.join(__dirname, '../../fixtures/data-dirs/tasks-format-1'), data, { recursive: true });
    const file = path.join(data, 'projects', 'legacy-app', 'task_graph.json');
    const log = path.join(data, 'projects', 'legacy-app', 'transitions.ndjson');
    const old = JSON.parse(await fs.readFile(file, 'utf8'));
    await TASK_FILES_MIGRATION.run(data);
    const upgraded = JSON.parse(await fs.readFile(file, 'utf8'));
    expect(upgraded).toMatchObject({ schema_version: 2, revision: old.revision + 1, transition_log_bytes: (await fs.stat(log)).size });
    expect(upgraded.nodes[0].error_logs.map((e: { attempt: number }) => e.attempt)).toEqual(Array.from({ length: 20 }, (_, i) => i + 6));
    const archived = (await fs.readFile(log, 'utf8')).trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.kind === 'attempt_record');
    expect(archived.map((l) => l.record)).toEqual(old.nodes[0].error_logs.slice(0, 5));
    // Idempotent: a second run changes nothing.
    const before = await fs.readFile(file, 'utf8');
    await TASK_FILES_MIGRATION.run(data);
    expect(await fs.readFile(file, 'utf8')).toBe(before);
    expect(TASK_FILES_MIGRATION.to).toBe(2);
  });
});
