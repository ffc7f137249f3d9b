import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ProjectLayout } from '../../../src/kernel/files/project-layout';
import { createTaskGraph } from '../../../src/modules/tasks/domain/create-task-graph';
import { addTasks, updateTask } from '../../../src/modules/tasks/domain/plan-edits';
import { FileTaskGraphStore } from '../../../src/modules/tasks/infrastructure/file-task-graph-store';
import { serializeGraph } from '../../../src/modules/tasks/infrastructure/graph-file-text';

/**
 * The file store's cheap text path (graph-file-text.ts): the file's bytes are exactly what `JSON.stringify(doc, null,
 * 2)` wrote before, and a store that remembers the text it last saw still reads every change made by anyone else.
 */
const now = '2026-12-01T10:00:00.000Z';
const tricky = [
  { id: 'a', title: 'costs $& and $1 and "nodes": []', description: 'two\nlines, tab\t, é, 𝄞' },
  { id: 'b', title: 'B', depends_on: ['a'], validation_command: 'test "$HOME" != ""', metadata: { url: 'https://x/y?z=1' } },
  { id: 'c', title: 'C', tags: ['x', 'y'] },
];

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-graph-text-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('serializes byte for byte as JSON.stringify(doc, null, 2), also after edits reuse the unchanged nodes\' text', () => {
  const graph = { ...createTaskGraph({ projectId: 'p', projectName: 'P "q"', projectRoot: '/tmp', now, nodes: tricky }), transition_log_bytes: 12 };
  expect(serializeGraph(graph)).toBe(JSON.stringify(graph, null, 2) + '\n');
  const edited = { ...updateTask(graph, 'b', { title: 'B2 $`' }, now).graph, transition_log_bytes: 40 };
  expect(serializeGraph(edited)).toBe(JSON.stringify(edited, null, 2) + '\n');
  const added = addTasks(edited, [{ id: 'd', title: 'D', depends_on: ['c'] }], now).graph;
  expect(serializeGraph(added)).toBe(JSON.stringify(added, null, 2) + '\n');
  const empty = { ...graph, nodes: [] };
  expect(serializeGraph(empty)).toBe(JSON.stringify(empty, null, 2) + '\n');
});

it('a store remembering the file it wrote still reads what another process and a hand edit changed', async () => {
  const a = new FileTaskGraphStore(new ProjectLayout(dir));
  const b = new FileTaskGraphStore(new ProjectLayout(dir));
  await a.create(createTaskGraph({ projectId: 'p', projectName: 'p', projectRoot: '/tmp', now, nodes: tricky }));
  expect((await a.load('p'))!.revision).toBe(0);
  await b.update('p', (g) => ({ graph: updateTask(g, 'c', { title: 'by b' }, now).graph, value: undefined }));
  expect((await a.load('p'))!.nodes[2].title).toBe('by b');
  // a's change builds on b's write (revision 2, b's title kept).
  await a.update('p', (g) => ({ graph: updateTask(g, 'a', { title: 'by a' }, now).graph, value: undefined }));
  const file = a.graphFile('p');
  const onDisk = JSON.parse(fs.readFileSync(file, 'utf8'));
  expect([onDisk.revision, onDisk.nodes[0].title, onDisk.nodes[2].title]).toEqual([2, 'by a', 'by b']);
  // A hand edit of the same length: still a different text, so it is read.
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"by a"', '"BY A"'));
  expect((await a.load('p'))!.nodes[0].title).toBe('BY A');
  expect((await b.load('p'))!.nodes[0].title).toBe('BY A');
  // What the store hands out is shared: frozen, so a caller cannot change it for the next one.
  const held = (await a.load('p'))!;
  expect(Object.isFrozen(held.nodes[0])).toBe(true);
});
