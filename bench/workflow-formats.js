// workflow_next on a 20-step current-format workflow (promptBlocks, features, refs, fragments, two templateCall
// routine expansions) beside the same 20 steps in the classic format, both served by the real storage stack
// (file → schema/compile → cache: compiled once per file version) and the real engine, in one process and one run.
// Also: the bytes of a typical classic answer (review-change's first step) now that the step text is carried once,
// beside the answer shape before issue 11 (step text repeated in step and guidance.prompt).
require('reflect-metadata');
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { tempDir, stats, report, ROOT } = require('./lib.js');

const dist = (p) => require(path.join(ROOT, 'dist', p));
const { FileWorkflowStorage } = dist('modules/workflow/infrastructure/file-workflow-storage');
const { SchemaValidatingWorkflowStorage } = dist('modules/workflow/infrastructure/schema-validating-workflow-storage');
const { CachingWorkflowStorage } = dist('modules/workflow/infrastructure/caching-workflow-storage');
const { WorkflowDocumentChecker } = dist('modules/workflow/application/services/workflow-document-checker');
const { ConditionEvaluator } = dist('modules/workflow/application/services/condition-evaluator');
const { StepOutputChecker } = dist('modules/workflow/application/services/step-output-checker');
const { GetNextStep } = dist('modules/workflow/application/use-cases/get-next-step');
const { ContractSchemaFiles } = dist('modules/workflow/infrastructure/contract-schema-files');
const { loadWorkflowSchema } = dist('modules/workflow/infrastructure/workflow-schema-file');
const { SchemaRegistry } = dist('kernel/schema-registry');
const { resolveNextStep } = dist('modules/workflow/domain/step-resolution');
const { buildStepGuidance } = dist('modules/workflow/domain/guidance');

const CALLS = Number(process.env.BENCH_WORKFLOW_CALLS || 20_000);

function workflows(dir) {
  const classic = { id: 'bench-classic', name: 'Classic', description: 'd', version: '1.0.0', steps: [] };
  const current = {
    id: 'wg.bench-current',
    name: 'Current',
    description: 'd',
    version: '1.0.0',
    features: ['wr.features.capabilities'],
    metricsProfile: 'coding',
    steps: [],
  };
  for (let i = 0; i < 16; i++) {
    classic.steps.push({ id: `s${i}`, title: `Step ${i} for {{task}}`, agentRole: 'You are careful.', prompt: `Do part ${i} of {{task}}.`, guidance: ['Be brief.'] });
    current.steps.push({
      id: `s${i}`,
      title: `Step ${i} for {{task}}`,
      promptBlocks: {
        goal: `Do part ${i} of {{task}}.`,
        constraints: [[{ kind: 'ref', refId: 'wr.refs.notes_first_durability' }], 'Be brief.'],
        procedure: ['Read.', 'Write.'],
        verify: ['It works.'],
      },
      promptFragments: [
        { id: 'hi', when: { var: 'risk', equals: 'high' }, text: 'High risk: go slowly.' },
        { id: 'lo', when: { var: 'risk', equals: 'low' }, text: 'Low risk.' },
      ],
    });
  }
  for (const caller of ['a', 'b']) {
    current.steps.push({ id: caller, title: 'Checks', templateCall: { templateId: 'wr.templates.routine.bench-checks', args: { subject: caller } } });
    classic.steps.push({ id: `${caller}-one`, title: 'One', prompt: `Check one for ${caller}.` }, { id: `${caller}-two`, title: 'Two', prompt: `Check two for ${caller}.` });
  }
  const routine = {
    id: 'wr.routine-bench-checks',
    name: 'Checks',
    description: 'd',
    version: '1.0.0',
    steps: [
      { id: 'one', title: 'One', prompt: 'Check one for {subject}.' },
      { id: 'two', title: 'Two', prompt: 'Check two for {subject}.' },
    ],
  };
  fs.writeFileSync(path.join(dir, 'classic.json'), JSON.stringify(classic));
  fs.writeFileSync(path.join(dir, 'current.json'), JSON.stringify(current));
  fs.mkdirSync(path.join(dir, 'routines'));
  fs.writeFileSync(path.join(dir, 'routines', 'checks.json'), JSON.stringify(routine));
  return { classic, current };
}

async function measure(next, workflowId, ids) {
  const samples = [];
  const context = { task: 'the parser', risk: 'high' };
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < CALLS / 2; i++) {
      const done = ids.slice(0, i % ids.length);
      const t0 = performance.now();
      const r = await next.execute({ workflowId, completedSteps: done, context });
      if (round === 1) samples.push(performance.now() - t0);
      if (!r.step && done.length < ids.length) throw new Error('no step');
    }
  }
  return stats(samples);
}

async function main() {
  const dir = tempDir('wg-bench-formats-');
  const { classic } = workflows(dir);
  const registry = new SchemaRegistry();
  const storage = new CachingWorkflowStorage(
    new SchemaValidatingWorkflowStorage(new FileWorkflowStorage(dir, 'flag'), new WorkflowDocumentChecker(registry, loadWorkflowSchema())),
    { ttlMs: 60_000, watch: false },
  );
  const next = new GetNextStep(storage, new ConditionEvaluator(), new StepOutputChecker(registry, new ContractSchemaFiles()));
  const ids = classic.steps.map((s) => s.id);
  const currentIds = ids.map((id) => id.replace('-', '.'));
  // Interleaved, so drift of the machine hits both alike.
  const c1 = await measure(next, 'bench-classic', ids);
  const n1 = await measure(next, 'wg.bench-current', currentIds);
  const c2 = await measure(next, 'bench-classic', ids);
  const n2 = await measure(next, 'wg.bench-current', currentIds);
  const classicMedian = Math.min(c1.median, c2.median);
  const currentMedian = Math.min(n1.median, n2.median);
  report('workflow-formats', 'workflow_next median, 20-step current format (promptBlocks, features, refs, fragments, 2 routine calls) vs classic', currentMedian, classicMedian, 'ms', { p99: Math.min(n1.p99, n2.p99), baselineP99: Math.min(c1.p99, c2.p99) });

  // Answer bytes: review-change's first step as workflow_next answers it now, beside the pre-issue-11 shape.
  const bundled = new FileWorkflowStorage(path.join(ROOT, 'workflows'), 'bundled');
  const wf = await bundled.get('review-change');
  const now = await new GetNextStep(bundled, new ConditionEvaluator(), new StepOutputChecker(registry, new ContractSchemaFiles())).execute({ workflowId: 'review-change', completedSteps: [], context: {} });
  const resolved = resolveNextStep(wf, [], {}, new ConditionEvaluator().asFunction);
  const before = { step: resolved.step, guidance: { prompt: buildStepGuidance(resolved.step, resolved.notes) }, isComplete: false, context: resolved.context };
  report('workflow-formats', 'workflow_next answer bytes, review-change first step (text carried once) vs the shape before issue 11', Buffer.byteLength(JSON.stringify(now)), Buffer.byteLength(JSON.stringify(before)), 'bytes');
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
