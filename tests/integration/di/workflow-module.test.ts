import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import type { UseCase } from '../../../src/kernel/use-case';
import type { WorkflowStorage } from '../../../src/modules/workflow/application/ports/workflow-storage';
import { SchemaRegistry } from '../../../src/kernel/schema-registry';
import { createTestContainer } from '../../../src/server/container';
import { WorkflowTokens } from '../../../src/modules/workflow';
import { InvalidWorkflowError } from '../../../src/kernel/errors';
import { CachingWorkflowStorage } from '../../../src/modules/workflow/infrastructure/caching-workflow-storage';
import { builtinTools } from '../../../src/server/builtin-tools';
import { workflowTools } from '../../../src/modules/workflow/workflow.tools';

const registry = new SchemaRegistry();

/** Runs a workflow tool's use case the way the RPC layer does: input checked, output checked against the schemas. */
async function call(c: DependencyContainer, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const tool = workflowTools.find((t) => t.name === name)!;
  const input = registry.validate(tool.inputSchema, args);
  if (!input.valid) throw new Error(`input rejected: ${registry.formatErrors(input.errors).join('; ')}`);
  const result = (await c.resolve<UseCase>(tool.useCase!).execute(args)) as Record<string, any>;
  const output = registry.validate(tool.outputSchema, result);
  expect(registry.formatErrors(output.errors)).toEqual([]);
  return result;
}

describe('workflow module (container + tool declarations)', () => {
  let root: string;
  let bundled: string;
  let flag: string;
  let c: DependencyContainer;

  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-wfmod-'));
    bundled = path.join(root, 'bundled');
    flag = path.join(root, 'flag');
    await fs.mkdir(bundled);
    await fs.mkdir(flag);
    await fs.copyFile(path.join(__dirname, '../../fixtures/workflows/code-review.json'), path.join(bundled, 'code-review.json'));
    await fs.writeFile(path.join(flag, 'broken.json'), '{"id": "broken", "name": "B", "description": "D", "version": "1.0.0", "steps": []}');
    c = createTestContainer({
      dataDir: path.join(root, 'data'),
      workflowSources: [
        { dir: bundled, source: 'bundled' },
        { dir: flag, source: 'flag' },
      ],
    });
  });
  afterEach(async () => {
    c.resolve<CachingWorkflowStorage>(WorkflowTokens.WorkflowStorage).close();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('declares six read-only stateless tools and six session tools, plain methods with object schemas, registered as builtins', () => {
    const stateless = ['workflow_list', 'workflow_get', 'workflow_next', 'workflow_validate', 'workflow_validate_json', 'workflow_get_schema'];
    const sessions = ['workflow_start', 'workflow_continue', 'workflow_checkpoint', 'workflow_resume', 'workflow_sessions', 'workflow_session'];
    expect(workflowTools.map((t) => t.name)).toEqual([...stateless, ...sessions]);
    const writers = ['workflow_start', 'workflow_continue', 'workflow_checkpoint'];
    for (const t of workflowTools) {
      expect(t).toMatchObject({ module: 'workflow', plainMethod: true, annotations: { readOnlyHint: !writers.includes(t.name), destructiveHint: false } });
      // A retried continue answers the same (idempotent); a second start or checkpoint makes a new one.
      expect(t.annotations.idempotentHint).toBe(!['workflow_start', 'workflow_checkpoint'].includes(t.name));
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema.type).toBe('object');
      expect(c.isRegistered(t.useCase!, true)).toBe(true);
    }
    const names = builtinTools().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(workflowTools.map((t) => t.name)));
  });

  it('composes Caching(SchemaValidating(MultiSource(File...))) as one shared storage', () => {
    const storage = c.resolve<WorkflowStorage>(WorkflowTokens.WorkflowStorage);
    expect(storage).toBeInstanceOf(CachingWorkflowStorage);
    expect(c.resolve(WorkflowTokens.WorkflowStorage)).toBe(storage);
    expect((storage as CachingWorkflowStorage).folders()).toEqual([bundled, flag]);
  });

  it('workflow_list reports valid workflows with their source and invalid files with their reason', async () => {
    const result = await call(c, 'workflow_list', {});
    expect(result.workflows).toEqual([
      { id: 'code-review', name: 'Code Review', description: expect.any(String), version: '1.0.0', source: 'bundled' },
    ]);
    expect(result.invalid).toEqual([
      { id: 'broken', file: path.join(flag, 'broken.json'), source: 'flag', reason: expect.stringMatching(/\/steps: must NOT have fewer than 1 items/) },
    ]);
  });

  it('workflow_get returns the whole workflow, its metadata, or a preview with the first eligible step', async () => {
    const full = await call(c, 'workflow_get', { id: 'code-review' });
    expect(full.steps).toHaveLength(4);
    const metadata = await call(c, 'workflow_get', { id: 'code-review', mode: 'metadata' });
    expect(metadata).toEqual({
      id: 'code-review',
      name: 'Code Review',
      description: expect.any(String),
      version: '1.0.0',
      preconditions: ['The change is available locally or as a diff'],
      clarificationPrompts: ['Which files or which diff should be reviewed?'],
      metaGuidance: expect.any(Array),
      totalSteps: 4,
    });
    const preview = await call(c, 'workflow_get', { id: 'code-review', mode: 'preview' });
    expect(preview.firstStep).toMatchObject({ id: 'gather', completionId: 'gather', title: 'Gather the change' });
    expect(preview.steps).toBeUndefined();
  });

  it('workflow_get preview of a workflow that starts with a forEach says the first step needs context', async () => {
    const loopFirst = {
      id: 'loop-first',
      name: 'Loop first',
      description: 'starts with a loop over a context array',
      version: '1.0.0',
      steps: [
        {
          id: 'each',
          type: 'loop',
          title: 'Each file',
          loop: { type: 'forEach', items: 'files', itemVar: 'file', maxIterations: 10 },
          body: [{ id: 'look', title: 'Look', prompt: 'Look at {{file}}' }],
        },
      ],
    };
    await fs.writeFile(path.join(flag, 'loop-first.json'), JSON.stringify(loopFirst));
    c.resolve<CachingWorkflowStorage>(WorkflowTokens.WorkflowStorage).invalidate();
    const preview = await call(c, 'workflow_get', { id: 'loop-first', mode: 'preview' });
    expect(preview.firstStep).toBeNull();
    expect(preview.firstStepNote).toMatch(/depends on the context: .*files/);
  });

  it('workflow_get of an invalid file says invalid and why', async () => {
    await expect(c.resolve<UseCase>(WorkflowTokens.GetWorkflow).execute({ id: 'broken' })).rejects.toBeInstanceOf(InvalidWorkflowError);
  });

  it('workflow_next and workflow_validate answers fit their output schemas through a loop to completion', async () => {
    const context: Record<string, unknown> = { files: ['a.ts', 'b.ts'], changedLines: 10 };
    const completed: string[] = [];
    const seen: string[] = [];
    let next = await call(c, 'workflow_next', { workflowId: 'code-review', completedSteps: completed, context });
    while (!next.isComplete) {
      seen.push(next.step.completionId);
      completed.push(next.step.completionId);
      next = await call(c, 'workflow_next', { workflowId: 'code-review', completedSteps: completed, context: next.context });
    }
    expect(seen).toEqual(['gather', 'review-files[0].review', 'review-files[1].review', 'summary']);
    expect(next.step).toBeNull();

    const verdict = await call(c, 'workflow_validate', {
      workflowId: 'code-review',
      stepId: 'review-files[1].review',
      output: 'Too short',
    });
    expect(verdict.valid).toBe(false);
    const json = await call(c, 'workflow_validate', {
      workflowId: 'code-review',
      stepId: 'summary',
      output: { verdict: 'approve', findings: [] },
    });
    expect(json.valid).toBe(true);
  });

  it('workflow_validate_json and workflow_get_schema', async () => {
    const ok = await call(c, 'workflow_validate_json', {
      workflowJson: await fs.readFile(path.join(bundled, 'code-review.json'), 'utf8'),
    });
    expect(ok).toMatchObject({ valid: true, issues: [], suggestions: [], format: "classic" });
    const bad = await call(c, 'workflow_validate_json', { workflowJson: '{"id": 1}' });
    expect(bad.valid).toBe(false);
    expect(bad.issues).toContainEqual({ path: '/id', line: 1, column: 8, message: expect.stringMatching(/must be string/) });
    const schema = await call(c, 'workflow_get_schema', {});
    expect(schema.schema.$id).toMatch(/workflow\.schema\.json$/);
  });

  it('bad tool arguments are caught by the input schemas', () => {
    const next = workflowTools.find((t) => t.name === 'workflow_next')!;
    expect(registry.validate(next.inputSchema, { workflowId: 'x' }).valid).toBe(false);
    expect(registry.validate(next.inputSchema, { workflowId: 'x', completedSteps: [], extra: 1 }).valid).toBe(false);
    const get = workflowTools.find((t) => t.name === 'workflow_get')!;
    expect(registry.validate(get.inputSchema, { id: 'x', mode: 'full' }).valid).toBe(false);
  });
});
