import { readdirSync } from 'node:fs';
import { compileCurrentWorkflow } from '../../../src/modules/workflow/domain/current-format/compile';
import { detectFormat } from '../../../src/modules/workflow/domain/current-format/detect-format';
import { join } from 'node:path';
import type { GetNextStep } from '../../../src/modules/workflow/application/use-cases/get-next-step';
import type { ValidateStepOutput } from '../../../src/modules/workflow/application/use-cases/validate-step-output';
import { checkWorkflowStructure } from '../../../src/modules/workflow/domain/structure-checks';
import { loadWorkflow } from './workflow-test-helpers';
import type { Workflow } from '../../../src/modules/workflow/domain/types';
import { workflowUseCases } from './use-case-container';
import { taskPlanContractRule } from '../../../src/modules/tasks/application/services/task-plan-contract';

/** One expected step of a walk: its completion id, text its prompt must contain, context the agent adds, its output. */
interface Expected {
  completionId: string;
  promptContains?: string;
  set?: Record<string, unknown>;
  output: string;
}

// review-change is written in the current format: compiled as the storage compiles it (no routines needed).
const compiled = (w: Workflow) => (detectFormat(w).format === 'current' ? compileCurrentWorkflow(w as never, () => undefined).workflow : w);
const workflows = ['implement-feature', 'fix-failing-test', 'review-change', 'plan-from-document', 'author-graph-tool'].map((id) => compiled(loadWorkflow(`workflows/${id}.json`)));
const codeReview = loadWorkflow('tests/fixtures/workflows/code-review.json');
const { next, validate } = workflowUseCases([...workflows, codeReview], [taskPlanContractRule]);

/**
 * Walks a workflow through GetNextStep like an agent: checks each step returned against `expected`, validates the
 * agent's output with ValidateStepOutput (it must pass), adds the context, appends the completion id, and sends the
 * returned context back. Returns the final answer (complete).
 */
async function walk(useCases: { next: GetNextStep; validate: ValidateStepOutput }, workflowId: string, expected: Expected[], context: Record<string, unknown> = {}) {
  const completed: string[] = [];
  let ctx = context;
  for (const exp of expected) {
    const r = await useCases.next.execute({ workflowId, completedSteps: completed, context: ctx });
    expect(r.isComplete).toBe(false);
    expect(r.step?.completionId).toBe(exp.completionId);
    if (exp.promptContains) expect(r.guidance.prompt).toContain(exp.promptContains);
    ctx = { ...r.context, ...exp.set };
    const verdict = await useCases.validate.execute({ workflowId, stepId: exp.completionId, output: exp.output, context: ctx });
    expect({ step: exp.completionId, ...verdict }).toEqual({ step: exp.completionId, valid: true, issues: [], suggestions: [] });
    completed.push(exp.completionId);
  }
  const end = await useCases.next.execute({ workflowId, completedSteps: completed, context: ctx });
  expect(end).toMatchObject({ step: null, isComplete: true });
  return end;
}

test('every bundled workflow file is one of the walked ones and its id matches its file name', () => {
  const files = readdirSync(join(__dirname, '..', '..', '..', 'workflows')).filter((f) => f.endsWith('.json'));
  expect(files.sort()).toEqual(['author-graph-tool.json', 'fix-failing-test.json', 'implement-feature.json', 'plan-from-document.json', 'review-change.json']);
  for (const w of workflows) expect(checkWorkflowStructure(w)).toEqual([]);
});

describe('implement-feature', () => {
  const start: Expected[] = [
    {
      completionId: 'clarify',
      promptContains: '## Role',
      set: { criteria: ['POST /items with an empty body returns 400', 'POST /items with a valid body stores the item'] },
      output: 'Reject empty bodies on POST /items.\n- POST /items with an empty body returns 400\n- POST /items with a valid body stores the item',
    },
    { completionId: 'explore', output: 'Change src/routes/items.ts; tests go in tests/items.test.ts (run with npm test).' },
    {
      completionId: 'plan',
      output: '1. Add a test for the empty body, make it pass in src/routes/items.ts.\n2. Add a test for storing a valid item, then implement it.',
    },
    {
      completionId: 'implement-criteria[0].write-test',
      promptContains: 'Criterion 1: POST /items with an empty body returns 400',
      output: 'npm test: 1 failing — expected status 400, got 500',
    },
    { completionId: 'implement-criteria[0].make-it-pass', output: 'npm test: all 41 tests passed' },
    {
      completionId: 'implement-criteria[1].write-test',
      promptContains: 'Criterion 2: POST /items with a valid body stores the item',
      output: 'The new test failed: expected 1 item, found 0',
    },
    { completionId: 'implement-criteria[1].make-it-pass', output: 'Test passes now; 42 passing' },
  ];
  const finish: Expected[] = [
    { completionId: 'full-check', output: 'Test Suites: 12 passed, 12 total. tsc: ok. eslint: ok' },
    {
      completionId: 'summary',
      output: '```json\n{"summary":"POST /items rejects empty bodies with 400","filesChanged":["src/routes/items.ts"],"testsAdded":["rejects an empty body","stores a valid item"]}\n```',
    },
  ];

  test('a feature that changes the public API: every criterion test first, then docs', async () => {
    const docs: Expected = { completionId: 'update-docs', output: 'Updated docs/api.md and CHANGELOG.md' };
    await walk({ next, validate }, 'implement-feature', [...start, docs, ...finish], { touchesPublicApi: true });
  });

  test('an internal feature skips the docs step', async () => {
    await walk({ next, validate }, 'implement-feature', [...start, ...finish], { touchesPublicApi: false });
  });

  test('a failing build does not pass full-check', async () => {
    const r = await validate.execute({ workflowId: 'implement-feature', stepId: 'full-check', output: 'Tests: 2 failed, 40 passed' });
    expect(r.valid).toBe(false);
  });
});

describe('fix-failing-test', () => {
  const reproduce = (kind: string): Expected => ({
    completionId: 'reproduce',
    set: { testCommand: 'npx jest tests/parser.test.ts', failureKind: kind },
    output: 'FAIL tests/parser.test.ts — expected 3 tokens, received 2',
  });
  const locate: Expected = { completionId: 'locate', output: 'src/parser.ts:42 stops the loop one token early' };
  const attempt = (i: number, passes: boolean): Expected[] => [
    { completionId: `fix-attempts[${i}].hypothesis`, promptContains: `Attempt ${i + 1}:`, output: 'The loop bound is off by one; use <= instead of <.' },
    {
      completionId: `fix-attempts[${i}].apply-fix`,
      promptContains: 'rerun `npx jest tests/parser.test.ts`',
      set: { testPasses: passes },
      output: passes ? 'Reran: 1 passed' : 'Reran: it still fails with the same assertion',
    },
  ];
  const finish: Expected[] = [
    { completionId: 'full-suite', output: 'Tests: 214 passed, 214 total' },
    { completionId: 'explain', output: 'Fix off-by-one in the tokenizer\n\nRoot cause: the loop stopped one token early; it now runs to the end.' },
  ];

  test('a deterministic failure fixed on the second attempt', async () => {
    await walk({ next, validate }, 'fix-failing-test', [reproduce('deterministic'), locate, ...attempt(0, false), ...attempt(1, true), ...finish]);
  });

  test('a flaky failure gets the stabilise step', async () => {
    const stabilise: Expected = {
      completionId: 'stabilise',
      promptContains: 'Run `npx jest tests/parser.test.ts` repeatedly',
      output: 'It fails when it runs after cache.test.ts, which leaves the shared cache filled.',
    };
    await walk({ next, validate }, 'fix-failing-test', [reproduce('flaky'), stabilise, locate, ...attempt(0, true), ...finish]);
  });

  test('five failed attempts stop the loop and the next step says the cap was reached', async () => {
    const steps = [reproduce('deterministic'), locate];
    for (let i = 0; i < 5; i++) steps.push(...attempt(i, false));
    const completed = steps.map((s) => s.completionId);
    const r = await next.execute({ workflowId: 'fix-failing-test', completedSteps: completed, context: { testCommand: 'x', testPasses: false } });
    expect(r.step?.completionId).toBe('full-suite');
    expect(r.guidance.prompt).toMatch(/## Note\n- Loop 'Fix and verify' \(fix-attempts\) stopped at its maxIterations \(5\)/);
  });
});

describe('review-change', () => {
  const scope = (set: Record<string, unknown>): Expected => ({
    completionId: 'scope',
    set: { files: ['src/http/client.ts', 'tests/client.test.ts'], ...set },
    output: 'Changed: src/http/client.ts, tests/client.test.ts (120 lines)',
  });
  const intent: Expected = { completionId: 'intent', promptContains: '## Goal\nSay what the change is meant to do', output: 'Adds retry with exponential backoff to the HTTP client so transient failures do not reach users.' };
  const files: Expected[] = [
    {
      completionId: 'review-files[0].review-file',
      promptContains: 'File 1: review src/http/client.ts.',
      output: 'line 14: the retry timer is never cleared on success (blocking)',
    },
    { completionId: 'review-files[1].review-file', promptContains: 'review tests/client.test.ts', output: 'No findings: the tests read well.' },
  ];
  const finish: Expected[] = [
    { completionId: 'tests', output: 'The tests cover the retry path but not giving up after the last attempt.' },
    {
      completionId: 'verdict',
      output: JSON.stringify({
        verdict: 'request-changes',
        summary: 'Good approach; one leak to fix.',
        findings: [{ file: 'src/http/client.ts', line: 14, severity: 'blocking', comment: 'Clear the timer on success' }],
      }),
    },
  ];

  test('a small, non-sensitive change skips the security pass', async () => {
    await walk({ next, validate }, 'review-change', [scope({ changedLines: 120, touchesSecurity: false }), intent, ...files, ...finish]);
  });

  test('a change touching security gets the security pass', async () => {
    const security: Expected = {
      completionId: 'security',
      output: 'New input: the Retry-After header, parsed as an integer and capped at 60 s. No new permissions or secrets.',
    };
    const securityFiles = files.map((f) => ({ ...f, promptContains: 'This change touches security' }));
    await walk({ next, validate }, 'review-change', [scope({ changedLines: 120, touchesSecurity: true }), intent, security, ...securityFiles, ...finish]);
  });

  test('the verdict must follow the schema', async () => {
    const r = await validate.execute({ workflowId: 'review-change', stepId: 'verdict', output: '{"verdict":"ship it","summary":"fine enough","findings":[]}' });
    expect(r.issues).toEqual(['The review must be the JSON object described: /verdict: must be one of "approve", "request-changes", "comment"']);
  });
});

describe('plan-from-document', () => {
  const reading: Expected[] = [
    { completionId: 'read-document', promptContains: '## Goal\nRead docs/prd.md', output: 'Goal: find documents by words. In scope: index and query. Out of scope: ranking. Acceptance: answers in 100 ms.' },
    { completionId: 'cut-tasks', promptContains: 'validation_command', output: 'index (npm test -- index), query (npm test -- query), review with the owner (no command: a person decides).' },
    { completionId: 'order-tasks', output: 'query depends on index; review depends on query.' },
  ];
  const nodes = [
    { id: 'index', title: 'Index', validation_command: 'npm test -- index' },
    { id: 'query', title: 'Query', depends_on: ['index'], validation_command: 'npm test -- query' },
  ];
  const artifact = (n: unknown[]) => ({ kind: 'wr.task_plan', version: 1, projectName: 'Search', nodes: n });

  test('walks to the plan; the plan step refuses a cycle by name and accepts a sound plan', async () => {
    const completed: string[] = [];
    let ctx: Record<string, unknown> = { document: 'docs/prd.md' };
    for (const exp of reading) {
      const r = await next.execute({ workflowId: 'plan-from-document', completedSteps: completed, context: ctx });
      expect(r.step?.completionId).toBe(exp.completionId);
      if (exp.promptContains) expect(r.guidance.prompt).toContain(exp.promptContains);
      expect(await validate.execute({ workflowId: 'plan-from-document', stepId: exp.completionId, output: exp.output, context: ctx })).toMatchObject({ valid: true });
      ctx = r.context;
      completed.push(exp.completionId);
    }
    const last = await next.execute({ workflowId: 'plan-from-document', completedSteps: completed, context: ctx });
    expect(last.step).toMatchObject({ id: 'hand-in-plan', outputContract: { contractRef: 'wr.contracts.task_plan' } });
    expect(last.guidance.prompt).toContain('call init_project_graph');
    const done = [...completed, 'hand-in-plan'];
    const cyclic = await next.execute({ workflowId: 'plan-from-document', completedSteps: done, context: ctx, output: { artifacts: [artifact([{ ...nodes[0], depends_on: ['query'] }, nodes[1]])] } });
    expect(cyclic.blocked).toBe(true);
    expect(cyclic.blockers?.map((b) => b.message)).toEqual([expect.stringMatching(/dependency cycle: (index -> query -> index|query -> index -> query)$/)]);
    const sound = await next.execute({ workflowId: 'plan-from-document', completedSteps: done, context: ctx, output: { artifacts: [artifact(nodes)] } });
    expect(sound).toMatchObject({ step: null, isComplete: true });
  });
});

describe('author-graph-tool', () => {
  const draft = {
    name: 'count_md',
    description: 'Counts the Markdown files in a folder',
    inputSchema: { type: 'object', properties: { folder: { type: 'string' } }, required: ['folder'] },
    outputSchema: { type: 'object', properties: { count: { type: 'number' } } },
    nodes: [
      { id: 'entry', type: 'entry', next: 'list' },
      { id: 'list', type: 'mcp', server: 'files', tool: 'list_directory', args: { path: { expr: '$.entry.folder' } }, next: 'count' },
      { id: 'count', type: 'transform', transform: { expr: '{"count": $count($split($.list.content, "\\n")[$contains($, ".md")])}' }, next: 'exit' },
      { id: 'exit', type: 'exit' },
    ],
  };

  test('walks from the need through discovery, the draft (checked as a tool definition), the tests and the inline run to saving', async () => {
    await walk(
      { next, validate },
      'author-graph-tool',
      [
        { completionId: 'understand-need', promptContains: 'counts Markdown files', output: 'count_md: counts the .md files in {folder: string}; answers {count: number}. graph_tool_list has nothing close. File graphs/tools.yaml, revision 0123456789abcdef.' },
        { completionId: 'discover-servers', promptContains: 'graph_mcp_server_list', output: 'files.list_directory {path} answers {content: "[FILE] a.md\\n..."}.' },
        { completionId: 'draft-tool', promptContains: '{name, description, inputSchema, outputSchema, nodes}', output: `\`\`\`json\n${JSON.stringify(draft)}\n\`\`\`` },
        { completionId: 'test-expressions', promptContains: 'graph_test_jsonata', output: 'count expr over {list: {content: "[FILE] a.md"}} answered {"count": 1}.' },
        { completionId: 'run-inline', promptContains: 'graph_tool_run', output: 'graph_tool_run {folder: "docs"}: status completed, result {count: 2}; an empty folder: completed, {count: 0}.' },
        { completionId: 'save-tool', promptContains: 'graph_tool_add', output: 'Saved to graphs/tools.yaml (revision fedcba9876543210); count_md {folder: "docs"} answered {count: 2}.' },
      ],
      { need: 'counts Markdown files' },
    );
  });

  test('the draft step refuses a definition that is not one (no nodes, a non-object outputSchema)', async () => {
    const verdict = await validate.execute({ workflowId: 'author-graph-tool', stepId: 'draft-tool', output: JSON.stringify({ ...draft, nodes: undefined, outputSchema: { type: 'string' } }) });
    expect(verdict.valid).toBe(false);
    expect(verdict.issues.join(' ')).toMatch(/nodes/);
  });
});

describe('code-review (the shared example)', () => {
  test('walks to completion with a threat model for a large change', async () => {
    await walk(
      { next, validate },
      'code-review',
      [
        { completionId: 'gather', set: { files: ['src/a.ts', 'src/b.ts'], changedLines: 900 }, output: 'src/a.ts and src/b.ts' },
        { completionId: 'threat-model', output: 'Inputs: the upload endpoint.' },
        { completionId: 'review-files[0].review', promptContains: 'Review src/a.ts.', output: 'Unchecked null on line 8 of the handler' },
        { completionId: 'review-files[1].review', promptContains: 'Review src/b.ts.', output: 'Read it fully: no findings here.' },
        { completionId: 'summary', output: '```json\n{"verdict":"request-changes","findings":["a.ts line 8: null"]}\n```' },
      ],
    );
  });
});
