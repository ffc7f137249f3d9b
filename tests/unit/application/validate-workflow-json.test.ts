import * as path from 'node:path';
import * as fs from 'node:fs';
import { SchemaRegistry } from '../../../src/kernel/schema-registry';
import { WorkflowDocumentChecker } from '../../../src/modules/workflow/application/services/workflow-document-checker';
import { ValidateWorkflowJson } from '../../../src/modules/workflow/application/use-cases/validate-workflow-json';
import { loadWorkflowSchema } from '../../../src/modules/workflow/infrastructure/workflow-schema-file';
import { FileReferenceChecker } from '../../../src/modules/workflow/infrastructure/file-reference-checker';
import { noopCallContext } from '../../../src/kernel/call-context';
import { MapWorkflowStorage } from './workflow-test-helpers';
import type { Workflow } from '../../../src/modules/workflow/domain/types';

const exampleText = fs.readFileSync(path.join(__dirname, '../../fixtures/workflows/code-review.json'), 'utf8');

function useCase(): ValidateWorkflowJson {
  return new ValidateWorkflowJson(new WorkflowDocumentChecker(new SchemaRegistry(), loadWorkflowSchema()));
}

/** Line/column (1-based) of the first occurrence of `needle` in `text`. */
function positionOf(text: string, needle: string, from = 0): { line: number; column: number } {
  const offset = text.indexOf(needle, from);
  if (offset < 0) throw new Error(`${needle} not in text`);
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

describe('ValidateWorkflowJson', () => {
  it('accepts the code-review example', async () => {
    expect(await useCase().execute({ workflowJson: exampleText })).toMatchObject({ valid: true, issues: [], suggestions: [], format: 'classic' });
  });

  it('reports a syntax error with its line and column', async () => {
    const text = '{\n  "id": "x",\n  "name": "y"\n  "description": "z"\n}';
    const result = await useCase().execute({ workflowJson: text });
    expect(result.valid).toBe(false);
    expect(result.issues[0]).toEqual({ path: '', line: 4, column: 3, message: expect.stringMatching(/expected ','/) });
    expect(result.suggestions.join(' ')).toMatch(/strict JSON/);
  });

  it('refuses comments and trailing commas (strict JSON), saying so', async () => {
    const comment = await useCase().execute({ workflowJson: '{\n  // note\n  "id": "x"\n}' });
    expect(comment.issues[0]).toMatchObject({ line: 2, column: 3, message: expect.stringMatching(/comments are not allowed/) });
    const trailing = await useCase().execute({ workflowJson: '{\n  "id": "x",\n}' });
    expect(trailing.issues[0]).toMatchObject({ line: 3, column: 1, message: expect.stringMatching(/trailing commas/) });
  });

  it('reports empty input', async () => {
    const result = await useCase().execute({ workflowJson: '' });
    expect(result.valid).toBe(false);
    expect(result.issues[0]).toMatchObject({ line: 1, column: 1 });
  });

  it('reports a schema error with the JSON pointer and the position of the value it points at', async () => {
    const doc = JSON.parse(exampleText);
    doc.steps[2].loop.maxIterations = 0;
    const text = JSON.stringify(doc, null, 2);
    const result = await useCase().execute({ workflowJson: text });
    expect(result.valid).toBe(false);
    const issue = result.issues.find((i) => i.path === '/steps/2/loop/maxIterations');
    expect(issue).toEqual({
      path: '/steps/2/loop/maxIterations',
      ...positionOf(text, '0', text.indexOf('"maxIterations"') + '"maxIterations": '.length - 1),
      message: expect.stringMatching(/>= 1/),
    });
    expect(result.suggestions.join(' ')).toMatch(/maxIterations/);
  });

  it('points at a misspelt property and names the allowed ones', async () => {
    const doc = JSON.parse(exampleText);
    doc.steps[0] = { id: 'gather', title: 'Gather', promt: 'typo' };
    const text = JSON.stringify(doc, null, 2);
    const result = await useCase().execute({ workflowJson: text });
    const unknown = result.issues.find((i) => i.path === '/steps/0/promt');
    expect(unknown).toMatchObject({ ...positionOf(text, '"typo"'), message: expect.stringMatching(/not an allowed property.*prompt/) });
    const missing = result.issues.find((i) => i.path === '/steps/0/prompt');
    // A missing property has no value: its position is the object that lacks it.
    expect(missing).toMatchObject({ ...positionOf(text, '{', text.indexOf('"steps"')), message: 'is required' });
    expect(result.suggestions.join(' ')).toMatch(/promt/);
  });

  it('checks loop requirements and nested validation criteria', async () => {
    const doc = JSON.parse(exampleText);
    doc.steps[2].loop = { type: 'while', maxIterations: 3 };
    doc.steps[2].body[0].validationCriteria.and[1].or[0] = { type: 'contains' };
    const result = await useCase().execute({ workflowJson: JSON.stringify(doc) });
    const paths = result.issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['/steps/2/loop/condition', '/steps/2/body/0/validationCriteria/and/1/or/0/value']));
    expect(result.issues.every((i) => !/must match "(then|else)" schema/.test(i.message))).toBe(true);
  });

  it('accepts range comparisons and JSON Logic conditions, and catches a misspelt comparison operator', async () => {
    const doc = JSON.parse(exampleText);
    doc.steps[1].runCondition = { and: [{ var: 'changedLines', gte: 400, lte: 5000 }, { '>': [{ var: 'changedLines' }, 0] }] };
    expect((await useCase().execute({ workflowJson: JSON.stringify(doc) })).issues).toEqual([]);
    doc.steps[1].runCondition = { or: [{ var: 'changedLines', greater: 400 }] };
    const result = await useCase().execute({ workflowJson: JSON.stringify(doc) });
    expect(result.issues).toEqual([expect.objectContaining({ path: '/steps/1/runCondition/or/0/greater', message: expect.stringMatching(/not an allowed property/) })]);
  });

  it('reports structure issues (duplicate step ids, unknown body references) with positions', async () => {
    const text = JSON.stringify(
      {
        id: 'dupes',
        name: 'Dupes',
        description: 'Has structural problems',
        version: '1.0.0',
        steps: [
          { id: 'a', title: 'A', prompt: 'Do A' },
          { id: 'a', title: 'A again', prompt: 'Do A again' },
          { id: 'loop', type: 'loop', title: 'L', loop: { type: 'for', count: 2, maxIterations: 5 }, body: 'ghost' },
        ],
      },
      null,
      2,
    );
    const result = await useCase().execute({ workflowJson: text });
    expect(result.valid).toBe(false);
    expect(result.issues).toEqual([
      { path: '/steps/1/id', ...positionOf(text, '"a"', text.indexOf('"a"') + 1), message: expect.stringMatching(/duplicate step id 'a'/) },
      { path: '/steps/2/body', ...positionOf(text, '"ghost"'), message: expect.stringMatching(/unknown step 'ghost'/) },
    ]);
    expect(result.suggestions.join(' ')).toMatch(/unique/);
  });

  it('never echoes the input back', async () => {
    const secret = 'TOP-SECRET-PROMPT-TEXT-' + 'x'.repeat(200);
    const doc = JSON.parse(exampleText);
    doc.steps[0].prompt = secret;
    doc.steps[0].oops = secret;
    const result = await useCase().execute({ workflowJson: JSON.stringify(doc) });
    expect(result.valid).toBe(false);
    expect(JSON.stringify(result)).not.toContain('TOP-SECRET');
  });

  it('caps the number of issues', async () => {
    const doc = JSON.parse(exampleText);
    doc.steps = Array.from({ length: 80 }, (_, i) => ({ id: `s${i}`, title: 'T', prompt: 'P', bad: true }));
    const result = await useCase().execute({ workflowJson: JSON.stringify(doc) });
    expect(result.issues).toHaveLength(51);
    expect(result.issues[50].message).toMatch(/30 more issue\(s\)/);
  });

  describe('current format: routines and references', () => {
    const dir = path.join(__dirname, '../../fixtures/workflows-current');
    const releaseText = fs.readFileSync(path.join(dir, 'release-check.json'), 'utf8');
    const routine = JSON.parse(fs.readFileSync(path.join(dir, 'routines/checklist.json'), 'utf8')) as Workflow;
    const checker = () => new WorkflowDocumentChecker(new SchemaRegistry(), loadWorkflowSchema());

    it('looks templateCall routines up among the loaded workflows (the tool), and names one it cannot find', async () => {
      const withRoutine = new ValidateWorkflowJson(checker(), new MapWorkflowStorage([routine]));
      const found = await withRoutine.execute({ workflowJson: releaseText });
      expect(found.issues).toEqual([]);
      expect(found.valid).toBe(true);
      const without = new ValidateWorkflowJson(checker(), new MapWorkflowStorage([]));
      const missing = await without.execute({ workflowJson: releaseText });
      expect(missing.valid).toBe(false);
      expect(missing.issues.map((i) => i.message).join('\n')).toMatch(new RegExp(`${routine.id.replace(/[.]/g, '\\.')}`));
      const api = positionOf(releaseText, '"templateCall"', releaseText.indexOf('"id": "api"'));
      expect(missing.issues.find((i) => i.path.startsWith('/steps/') && /templateCall/.test(i.path))).toMatchObject({ line: api.line });
    });

    it('warns of a missing reference at the line:col of its source, and leaves found ones alone', async () => {
      const useCaseWithRefs = new ValidateWorkflowJson(checker(), new MapWorkflowStorage([routine]), new FileReferenceChecker());
      const result = await useCaseWithRefs.execute({ workflowJson: releaseText, referenceBases: { file: path.join(dir, 'release-check.json'), workspace: dir } });
      expect(result.valid).toBe(true);
      const refs = (result.warnings ?? []).filter((w) => w.path.startsWith('/references/'));
      expect(refs).toEqual([
        { path: '/references/1/source', ...positionOf(releaseText, '"docs/nowhere.md"'), message: `reference 'missing' (package) not found: ${path.join(dir, 'docs/nowhere.md')}` },
      ]);
    });

    it('resolves workspace references against the first client root when no bases are given', async () => {
      const doc = JSON.parse(releaseText);
      doc.references = [{ id: 'readme', source: 'README.md', resolveFrom: 'workspace' }, { id: 'gone', source: 'no-such.md', resolveFrom: 'workspace' }];
      const text = JSON.stringify(doc, null, 2);
      const useCaseWithRefs = new ValidateWorkflowJson(checker(), new MapWorkflowStorage([routine]), new FileReferenceChecker());
      const root = path.join(__dirname, '../../..');
      const ctx = { ...noopCallContext(), clientRoots: async () => [root, '/elsewhere'] };
      const result = await useCaseWithRefs.execute({ workflowJson: text }, ctx);
      expect((result.warnings ?? []).filter((w) => w.path.startsWith('/references/'))).toEqual([
        { path: '/references/1/source', ...positionOf(text, '"no-such.md"'), message: `reference 'gone' (workspace) not found: ${path.join(root, 'no-such.md')}` },
      ]);
      // Without a workspace nothing is checked, so nothing is flagged.
      const none = await useCaseWithRefs.execute({ workflowJson: text });
      expect((none.warnings ?? []).filter((w) => w.path.startsWith('/references/'))).toEqual([]);
    });
  });
});
