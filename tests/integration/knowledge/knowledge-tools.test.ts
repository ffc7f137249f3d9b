import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { container as root } from 'tsyringe';
import { knowledgeTools } from '../../../src/modules/knowledge/knowledge.tools';
import { knowledgeModule } from '../../../src/modules/knowledge/knowledge.module';
import { Tokens } from '../../../src/kernel/tokens';
import { silentLogger } from '../../../src/kernel/logger';
import type { AppConfig } from '../../../src/kernel/config/app-config';
import type { UseCase } from '../../../src/kernel/use-case';

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const tool = (name: string) => knowledgeTools.find((t) => t.name === name)!;

describe('knowledge tools through the DI module', () => {
  let dataDir: string;
  let call: (name: string, input: unknown) => Promise<Record<string, unknown>>;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-knowledge-tools-'));
    const c = root.createChildContainer();
    c.register(Tokens.Logger, { useValue: silentLogger });
    c.register(Tokens.Clock, { useValue: { now: () => Date.UTC(2025, 0, 2, 3, 4, 5) } });
    knowledgeModule(c, { dataDir, knowledge: { backupMaxAgeDays: 90, backupMaxCount: 50 } } as AppConfig);
    call = async (name, input) => {
      const def = tool(name);
      const validIn = ajv.compile(def.inputSchema);
      if (!validIn(input)) throw new Error(`input rejected: ${ajv.errorsText(validIn.errors)}`);
      const out = (await c.resolve<UseCase>(def.useCase!).execute(input)) as Record<string, unknown>;
      const validOut = ajv.compile(def.outputSchema);
      expect(validOut(out)).toBe(true);
      return out;
    };
  });
  afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

  it('declares six object-schema tools of module knowledge; delete is destructive, reads are read-only', () => {
    expect(knowledgeTools.map((t) => t.name)).toEqual(['add_nodes', 'list_nodes', 'get_node', 'search_nodes', 'delete_nodes', 'restore_nodes']);
    for (const t of knowledgeTools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema.type).toBe('object');
      expect(t.module).toBe('knowledge');
      expect(t.useCase).toBeDefined();
    }
    expect(tool('delete_nodes').annotations.destructiveHint).toBe(true);
    expect(tool('list_nodes').annotations.readOnlyHint).toBe(true);
    expect(tool('get_node').annotations.readOnlyHint).toBe(true);
    expect(tool('search_nodes').annotations.readOnlyHint).toBe(true);
  });

  it('input schemas refuse empty nodeIds, empty ids, unknown fields and bad roles', () => {
    const del = ajv.compile(tool('delete_nodes').inputSchema);
    expect(del({ nodeIds: [], projectContext: '/a' })).toBe(false);
    expect(del({ nodeIds: [''], projectContext: '/a' })).toBe(false);
    expect(del({ nodeIds: ['a'], projectContext: '/a', force: true })).toBe(false);
    expect(del({ nodeIds: ['a'], projectContext: '/a', reason: 'r', recalculateSummaries: true })).toBe(true);
    const add = ajv.compile(tool('add_nodes').inputSchema);
    expect(add({ projectContext: '/a', nodes: [{ thought: 't', role: 'boss' }] })).toBe(false);
    expect(add({ projectContext: '/a', nodes: [{ thought: 't', role: 'actor', id: '../x' }] })).toBe(false);
  });

  it('runs add, list, get, delete (refused, then confirmed) and restore with answers matching the output schemas', async () => {
    const ctx = 'C:\\work\\Tool Test\\';
    const added = await call('add_nodes', {
      projectContext: ctx,
      nodes: [
        { id: 'a', thought: 'root idea', role: 'actor', tags: ['x'] },
        { id: 'b', thought: 'review', role: 'critic', parents: ['a'], verdict: 'needs_revision', target: 'a' },
      ],
    });
    expect(added).toEqual({ project: 'tool-test', ids: ['a', 'b'] });
    expect(((await call('list_nodes', { projectContext: ctx })).nodes as unknown[]).length).toBe(2);
    expect(((await call('get_node', { projectContext: ctx, id: 'a' })).node as { children: string[] }).children).toEqual(['b']);
    const refused = await call('delete_nodes', { projectContext: ctx, nodeIds: ['a'] });
    expect(refused.success).toBe(false);
    const done = await call('delete_nodes', { projectContext: ctx, nodeIds: ['a', 'b'], reason: 'typo' });
    expect(done.success).toBe(true);
    expect(done.backupPath).toBe(path.join(dataDir, 'projects', 'tool-test', 'backup', 'knowledge_graph_20250102-030405.ndjson'));
    const restored = await call('restore_nodes', { projectContext: ctx, nodeIds: ['b', 'a'] });
    expect(restored.restoredNodeIds).toEqual(['a', 'b']);
  });
});
