import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { connectClient, tempDir } from './helpers/server-process';
import { CONTRACTS, ASSESSMENT_KIND } from '../../src/modules/workflow/domain/current-format/contracts';

type Next = { step: { id: string; confirmation?: { by: string; reason: string }; outputContract?: { contractRef: string; example: object; schema: string } } | null };

/**
 * Issue 12 through the built server: every output contract WorkRail's files use has a JSON Schema that
 * workflow_get_schema serves, the example a step answer carries satisfies it, and requireConfirmation says for whom
 * the agent stops (the person, or a coordinating agent).
 */
describe('current-format contracts and confirmations (built server, SDK client)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);

  beforeAll(async () => {
    tmp = tempDir();
    const dir = path.join(tmp.dir, 'workflows');
    fs.mkdirSync(dir);
    const steps = [
      { id: 'human', title: 'Human', prompt: 'p', requireConfirmation: { kind: 'human_approval' } },
      { id: 'coord', title: 'Coordinator', prompt: 'p', requireConfirmation: { kind: 'coordinator_eval' } },
      { id: 'cond', title: 'Conditional', prompt: 'p', requireConfirmation: { kind: 'coordinator_eval', condition: { var: 'risk', equals: 'high' } } },
      { id: 'plain', title: 'Plain', prompt: 'p', requireConfirmation: true },
      ...Object.keys(CONTRACTS).map((ref, i) => ({ id: `c${i}`, title: ref, prompt: 'p', outputContract: { contractRef: ref, required: false } })),
    ];
    fs.writeFileSync(path.join(dir, 'contracts.json'), JSON.stringify({ id: 'wg.contracts', name: 'n', description: 'd', version: '1.0.0', steps }, null, 2));
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--workflows', dir] });
  });
  afterAll(async () => {
    await conn.close();
    tmp.cleanup();
  });

  const next = async (completedSteps: string[], context: Record<string, unknown> = {}) => {
    const r = await conn.client.callTool({ name: 'workflow_next', arguments: { workflowId: 'wg.contracts', completedSteps, context } });
    expect(r.isError).toBeFalsy();
    return r.structuredContent as Next;
  };

  it('each contract: the answer names it with an example that satisfies the schema workflow_get_schema serves', async () => {
    const refs = Object.keys(CONTRACTS);
    expect(refs).toEqual(
      expect.arrayContaining(['loop_control', 'coding_handoff', 'review_verdict', 'discovery_handoff', 'gate_verdict', 'shaping_handoff', 'differentiation_handoff'].map((n) => `wr.contracts.${n}`)),
    );
    const done = ['human', 'coord', 'cond', 'plain'];
    for (let i = 0; i < refs.length; i++) {
      const answer = await next(done, { risk: 'low' });
      expect(answer.step?.id).toBe(`c${i}`);
      const contract = answer.step!.outputContract!;
      expect(contract.contractRef).toBe(refs[i]);
      const served = await conn.client.callTool({ name: 'workflow_get_schema', arguments: { contract: refs[i] } });
      expect(served.isError).toBeFalsy();
      const validate = ajv.compile((served.structuredContent as { schema: object }).schema);
      expect({ ref: refs[i], valid: validate(contract.example), errors: validate.errors ?? null }).toEqual({ ref: refs[i], valid: true, errors: null });
      // A copy without its kind is refused by the same schema: the schema checks something.
      const { kind: _kind, ...withoutKind } = contract.example as { kind: string };
      expect(validate(withoutKind)).toBe(false);
      done.push(`c${i}`);
    }
    const assessment = await conn.client.callTool({ name: 'workflow_get_schema', arguments: { contract: ASSESSMENT_KIND } });
    expect(ajv.compile((assessment.structuredContent as { schema: object }).schema)({ kind: 'wr.assessment', assessmentId: 'a', dimensions: { d: 'x' } })).toBe(true);
    const unknown = await conn.client.callTool({ name: 'workflow_get_schema', arguments: { contract: 'wr.contracts.nope' } });
    expect(unknown.isError).toBe(true);
    expect((unknown.content as Array<{ text: string }>)[0].text).toMatch(/unknown contract 'wr\.contracts\.nope'; known: .*wr\.contracts\.loop_control/);
  });

  it('requireConfirmation says who the agent stops for: the person, or a coordinating agent, and only when its condition holds', async () => {
    expect((await next([])).step!.confirmation).toMatchObject({ by: 'user', reason: expect.stringMatching(/human approval/) });
    expect((await next(['human'])).step!.confirmation).toMatchObject({ by: 'coordinator', reason: expect.stringMatching(/coordinating agent/) });
    expect((await next(['human', 'coord'], { risk: 'low' })).step!.confirmation).toBeUndefined();
    expect((await next(['human', 'coord'], { risk: 'High' })).step!.confirmation).toMatchObject({ by: 'coordinator' });
    expect((await next(['human', 'coord', 'cond'])).step!.confirmation).toMatchObject({ by: 'user' });
  });
});
