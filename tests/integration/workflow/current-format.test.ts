import * as path from 'node:path';
import { callNext, folderStorage, walk } from './workrail-helpers';
import type { ParallelDelegation, Workflow } from '../../../src/modules/workflow/domain/types';

const FOLDER = path.join(__dirname, '../../fixtures/workflows-current');

describe('current format: our own fixtures walked feature by feature', () => {
  let wf: Workflow;
  beforeAll(async () => {
    const storage = folderStorage(FOLDER);
    const listing = await storage.list();
    expect(listing.invalid).toEqual([]);
    wf = await storage.get('wg.release-check');
  });

  it('renders promptBlocks with refs and features, fills {{a.b}}, and switches fragments with the context', () => {
    const low = callNext(wf, [], { version: '2.4.0', product: { name: 'workgraph' }, riskLevel: 'low' });
    expect(low.step).toMatchObject({ completionId: 'scope', title: 'Scope release 2.4.0', fragments: ['low-risk'] });
    const text = low.guidance.prompt;
    expect(text).toContain('## Goal\nDecide what release 2.4.0 of workgraph contains.');
    expect(text).toContain('## Procedure\n1. List the merged changes.');
    expect(text).toContain('- **scope**: The list of changes');
    expect(text).toMatch(/Write what matters into your notes/); // wr.refs.notes_first_durability
    expect(text).toMatch(/optional capability/); // wr.features.capabilities added to constraints
    expect(text).toContain('Low risk: one reviewer is enough.');
    expect(text).not.toContain('High risk');
    expect(low.step!.confirmation).toBeUndefined();
    const high = callNext(wf, [], { version: '2.4.0', riskLevel: 'HIGH' }); // WorkRail's equals ignores case
    expect(high.step!.fragments).toEqual(['high-risk']);
    expect(high.guidance.prompt).toContain('[unset: product.name]');
    expect(high.step!.confirmation).toEqual({ by: 'user', reason: expect.stringMatching(/human approval/) });
  });

  it('expands one routine twice with its own ids and args, keeping the caller runCondition', () => {
    const ctx = { riskLevel: 'low', hasMigrations: true };
    const a = callNext(wf, ['scope'], ctx);
    expect(a.step).toMatchObject({ completionId: 'api.list', title: 'List checks for the public API' });
    expect(a.guidance.prompt).toContain('Keep the checklist for the public API short.');
    expect(callNext(wf, ['scope', 'api.list', 'api.run'], ctx).step).toMatchObject({ completionId: 'db.list', title: 'List checks for the database migrations' });
    // without migrations the second expansion is skipped as a whole
    expect(callNext(wf, ['scope', 'api.list', 'api.run'], { riskLevel: 'low' }).step?.completionId).toBe('reviews');
  });

  it('a parallel step lists only the delegations whose conditions hold', () => {
    const done = ['scope', 'api.list', 'api.run'];
    const low = callNext(wf, done, { riskLevel: 'low' });
    expect((low.step!.delegations as ParallelDelegation[]).map((d) => d.args!.subject)).toEqual(['security']);
    expect(low.guidance.prompt).toContain('## Parallel delegations');
    const high = callNext(wf, done, { riskLevel: 'high' });
    expect((high.step!.delegations as ParallelDelegation[]).map((d) => d.args!.subject)).toEqual(['security', 'performance']);
  });

  it('a loop goes on while its artifact says continue and stops when it says stop; a missing required artifact blocks, and the next call fixes it', () => {
    const before = ['scope', 'api.list', 'api.run', 'reviews'];
    const ctx0 = { riskLevel: 'low' };
    const first = callNext(wf, before, ctx0);
    expect(first.step?.completionId).toBe('fix-loop[0].fix');
    expect(first.guidance.prompt).toContain('pass [unset: fixPass]');
    const decide = callNext(wf, [...before, 'fix-loop[0].fix'], first.context);
    expect(decide.step!.outputContract).toMatchObject({ contractRef: 'wr.contracts.loop_control', required: true, kind: 'wr.loop_control' });

    const done0 = [...before, 'fix-loop[0].fix', 'fix-loop[0].decide'];
    const blocked = callNext(wf, done0, decide.context);
    expect(blocked.blocked).toBe(true);
    expect(blocked.step?.completionId).toBe('fix-loop[0].decide');
    expect(blocked.blockers).toEqual([
      expect.objectContaining({ code: 'contract_artifact_missing', pointer: '/output/artifacts', expected: expect.objectContaining({ kind: 'wr.loop_control' }) }),
    ]);
    expect(blocked.contractSchema).toMatchObject({ title: 'Loop control decision' });

    const wrong = callNext(wf, done0, decide.context, { artifacts: [{ kind: 'wr.loop_control', decision: 'maybe' }] });
    expect(wrong.blocked).toBe(true);
    expect(wrong.blockers![0]).toMatchObject({ code: 'contract_artifact_invalid', pointer: '/output/artifacts/0/decision' });

    const cont = callNext(wf, done0, decide.context, { artifacts: [{ kind: 'wr.loop_control', decision: 'continue' }] });
    expect(cont.blocked).toBeUndefined();
    expect(cont.step?.completionId).toBe('fix-loop[1].fix');
    // sending the returned context back without output is deterministic and does not block again
    expect(callNext(wf, done0, cont.context).step?.completionId).toBe('fix-loop[1].fix');

    const done1 = [...done0, 'fix-loop[1].fix', 'fix-loop[1].decide'];
    const stop = callNext(wf, done1, cont.context, { notesMarkdown: 'clean', artifacts: [{ kind: 'wr.loop_control', decision: 'stop' }] });
    expect(stop.step?.completionId).toBe('readiness-check');
    expect(stop.context.__workgraph).toMatchObject({ loopControl: { 'fix-loop': 'stop' } });
  });

  it('an assessment lists its levels; a triggering level sends the agent back once with the follow-up guidance', () => {
    const done = ['scope', 'api.list', 'api.run', 'reviews', 'fix-loop[0].fix', 'fix-loop[0].decide'];
    const ctx = { riskLevel: 'low', __workgraph: { loopControl: { 'fix-loop': 'stop' }, accepted: 'fix-loop[0].decide' } };
    const ask = callNext(wf, done, ctx);
    expect(ask.step!.assessments).toEqual([
      expect.objectContaining({ id: 'readiness', dimensions: [expect.objectContaining({ id: 'tests', levels: ['failing', 'passing'] }), expect.objectContaining({ id: 'docs' })] }),
    ]);
    const badLevel = callNext(wf, [...done, 'readiness-check'], ask.context, {
      artifacts: [{ kind: 'wr.assessment', assessmentId: 'readiness', dimensions: { tests: 'green', docs: 'current' } }],
    });
    expect(badLevel.blockers).toEqual([expect.objectContaining({ code: 'assessment_level_invalid', pointer: '/output/artifacts/0/dimensions/tests', expected: ['failing', 'passing'] })]);
    const failing = { artifacts: [{ kind: 'wr.assessment', assessmentId: 'readiness', dimensions: { tests: 'failing', docs: 'current' } }] };
    const follow = callNext(wf, [...done, 'readiness-check'], ask.context, failing);
    expect(follow.followup).toBe('Tests are failing: fix them and assess again.');
    expect(follow.step?.completionId).toBe('readiness-check');
    expect(follow.guidance.prompt).toMatch(/^## Follow-up required\nTests are failing/);
    const after = callNext(wf, [...done, 'readiness-check'], follow.context, failing);
    expect(after.followup).toBeUndefined();
    expect(after.step).toMatchObject({ completionId: 'verdict', requireConfirmation: true, outputContract: { contractRef: 'wr.contracts.review_verdict' } });
    expect(after.guidance.prompt).toMatch(/## Metrics\nThis is the last step: set `metrics_pr_numbers`/);
  });

  it('walks the whole fixture generically to completion', () => {
    const record = walk(wf);
    expect(record.steps).toEqual(['scope', 'api.list', 'api.run', 'reviews', 'fix-loop[0].fix', 'fix-loop[0].decide', 'readiness-check', 'verdict']);
  });

  it('WorkRail condition semantics in current-format files: not_equals on a missing variable is true', () => {
    // routine step 'run' has runCondition {skipChecks not_equals true}: with skipChecks missing it runs
    expect(callNext(wf, ['scope', 'api.list'], {}).step?.completionId).toBe('api.run');
    expect(callNext(wf, ['scope', 'api.list'], { skipChecks: 'yes' }).step?.completionId).toBe('reviews');
  });
});

describe('workgraph validate on current-format files', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { validateFiles } = require('../../../src/cli/validate') as typeof import('../../../src/cli/validate');
  const fs = require('node:fs') as typeof import('node:fs');
  const os = require('node:os') as typeof import('node:os');

  it('says which format it read, warns on format-dependent conditions and missing references (not errors), finds routines in the folder', async () => {
    const notes: string[] = [];
    const problems = await validateFiles([path.join(FOLDER, 'release-check.json')], { onNote: (n) => notes.push(n.message) });
    expect(notes).toEqual(["read as the current workflow format (dotted id 'wg.release-check')"]);
    expect(problems.filter((p) => p.severity !== 'warning')).toEqual([]);
    expect(problems.map((p) => p.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/reference 'missing' \(package\) not found/), expect.stringMatching(/riskLevel.*ignores case/)]),
    );
    // Every warning carries the line:col of the value it is about (the missing reference: its `source`).
    const text = fs.readFileSync(path.join(FOLDER, 'release-check.json'), 'utf8').split('\n');
    const line = text.findIndex((l) => l.includes('"docs/nowhere.md"')) + 1;
    expect(problems.find((p) => /reference 'missing'/.test(p.message))).toMatchObject({ line, column: text[line - 1].indexOf('"docs/nowhere.md"') + 1 });
    expect(problems.every((p) => p.line > 1)).toBe(true);
  });

  it('reports every problem of a broken file in one pass with file:line:column: unknown routine, ref, feature, contract, prompt and promptBlocks both, a nested loop', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-current-'));
    try {
      const file = path.join(dir, 'broken.json');
      const doc = {
        id: 'wg.broken',
        name: 'Broken',
        description: 'd',
        version: '1.0.0',
        features: ['wr.features.nope'],
        steps: [
          { id: 'a', title: 'A', prompt: 'x', promptBlocks: { goal: [{ kind: 'ref', refId: 'wr.refs.nope' }] } },
          { id: 'b', title: 'B', templateCall: { templateId: 'wr.templates.routine.missing-one' } },
          { id: 'c', title: 'C', prompt: 'y', outputContract: { contractRef: 'wr.contracts.loop_control' }, assessmentRefs: ['ghost'] },
          { id: 'l', type: 'loop', title: 'L', loop: { type: 'for', count: 2, maxIterations: 3 }, body: [{ id: 'inner', type: 'loop', title: 'I', loop: { type: 'for', count: 1, maxIterations: 2 }, body: [{ id: 'z', title: 'Z', prompt: 'z' }] }] },
        ],
      };
      fs.writeFileSync(file, JSON.stringify(doc, null, 2));
      const problems = (await validateFiles([file])).filter((p) => p.severity !== 'warning');
      const text = problems.map((p) => `${p.line}:${p.column} ${p.message}`).join('\n');
      expect(text).toMatch(/unknown feature 'wr\.features\.nope'/);
      expect(text).toMatch(/unknown ref 'wr\.refs\.nope'/);
      expect(text).toMatch(/both prompt and promptBlocks/);
      expect(text).toMatch(/needs routine workflow 'wr\.routine-missing-one'/);
      expect(text).toMatch(/assessment 'ghost' is not defined/);
      expect(text).toMatch(/cannot be nested/);
      expect(problems.every((p) => p.line > 1)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
