import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';

type Next = {
  step: { id: string; completionId: string; prompt?: string; loop?: { id: string; iteration: number; item?: unknown } } | null;
  guidance: { prompt: string };
  isComplete: boolean;
  context: Record<string, unknown>;
};

/** A full walk of the shared code-review example through the real SDK client: a loop and a skipped step. */
describe('workflow walk (built server, SDK client)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  beforeAll(async () => {
    tmp = tempDir();
    const wfDir = path.join(tmp.dir, 'workflows');
    fs.mkdirSync(wfDir);
    fs.copyFileSync(path.join(__dirname, '../fixtures/workflows/code-review.json'), path.join(wfDir, 'code-review.json'));
    fs.writeFileSync(path.join(wfDir, 'broken.json'), '{"id": "broken", "steps": [');
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--workflows', wfDir] });
  });
  afterAll(async () => {
    await conn.close();
    tmp.cleanup();
  });

  async function next(completedSteps: string[], context: Record<string, unknown>): Promise<Next> {
    const r = await conn.client.callTool({ name: 'workflow_next', arguments: { workflowId: 'code-review', completedSteps, context } });
    expect(r.isError).toBeFalsy();
    return r.structuredContent as Next;
  }

  it('lists the dropped-in workflow and reports the broken file apart', async () => {
    const r = await conn.client.callTool({ name: 'workflow_list', arguments: {} });
    const listing = r.structuredContent as { workflows: Array<{ id: string; source: string }>; invalid: Array<{ file: string; reason: string }> };
    expect(listing.workflows).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'code-review', source: 'flag' })]));
    expect(listing.invalid).toEqual([expect.objectContaining({ file: expect.stringContaining('broken.json') })]);
    const get = await conn.client.callTool({ name: 'workflow_get', arguments: { id: 'broken' } });
    expect(get.isError).toBe(true);
    expect((get.content as Array<{ text: string }>)[0].text).toMatch(/^invalid_workflow: /);
  });

  it('walks gather → (threat-model skipped) → review per file → summary, validating outputs on the way', async () => {
    const done: string[] = [];
    let ctx: Record<string, unknown> = {};

    let r = await next(done, ctx);
    expect(r.step?.id).toBe('gather');
    expect(r.guidance.prompt).toContain('careful reviewer');
    done.push(r.step!.completionId);
    ctx = { ...r.context, files: ['src/a.ts', 'src/b.ts'], changedLines: 120 };

    const seen: string[] = [];
    for (let i = 0; i < 2; i++) {
      r = await next(done, ctx);
      expect(r.step?.id).toBe('review');
      expect(r.step?.completionId).toBe(`review-files[${i}].review`);
      expect(r.step?.loop).toMatchObject({ id: 'review-files', iteration: i, item: ctx.files && (ctx.files as string[])[i] });
      expect(r.guidance.prompt).toContain(`Review ${(ctx.files as string[])[i]}`);
      seen.push(r.step!.completionId);

      // Sending the returned context back unchanged gives the same answer.
      const again = await next(done, r.context);
      expect(again.step?.completionId).toBe(r.step!.completionId);

      const bad = await conn.client.callTool({
        name: 'workflow_validate',
        arguments: { workflowId: 'code-review', stepId: r.step!.completionId, output: 'ok', context: r.context },
      });
      expect((bad.structuredContent as { valid: boolean }).valid).toBe(false);
      const good = await conn.client.callTool({
        name: 'workflow_validate',
        arguments: { workflowId: 'code-review', stepId: r.step!.completionId, output: 'Unchecked null at line 12 of the parser.', context: r.context },
      });
      expect(good.structuredContent).toEqual({ valid: true, issues: [], suggestions: [] });

      done.push(r.step!.completionId);
      ctx = r.context;
    }
    expect(seen).toEqual(['review-files[0].review', 'review-files[1].review']);

    r = await next(done, ctx);
    expect(r.step?.id).toBe('summary'); // threat-model was skipped: changedLines <= 400
    const summary = await conn.client.callTool({
      name: 'workflow_validate',
      arguments: { workflowId: 'code-review', stepId: 'summary', output: '```json\n{"verdict":"approve","findings":[]}\n```' },
    });
    expect((summary.structuredContent as { valid: boolean }).valid).toBe(true);
    done.push('summary');

    r = await next(done, ctx);
    expect(r.isComplete).toBe(true);
    expect(r.step).toBeNull();
  });

  it('validates workflow JSON with positions', async () => {
    const r = await conn.client.callTool({ name: 'workflow_validate_json', arguments: { workflowJson: '{\n  "id": "Bad Id",\n  "name": 3\n}' } });
    const out = r.structuredContent as { valid: boolean; issues: Array<{ path: string; line: number; column: number; message: string }> };
    expect(out.valid).toBe(false);
    expect(out.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/id', line: 2 })]));
  });

  it('serves the workflow schema', async () => {
    const r = await conn.client.callTool({ name: 'workflow_get_schema', arguments: {} });
    expect(JSON.stringify(r.structuredContent)).toContain('maxIterations');
  });

  it('refuses unknown completionIds naming them and the valid ones; a later step never completes earlier ones (issue 11)', async () => {
    const r = await conn.client.callTool({ name: 'workflow_next', arguments: { workflowId: 'code-review', completedSteps: ['scoop'], context: {} } });
    expect(r.isError).toBe(true);
    const text = (r.content as Array<{ text: string }>)[0].text;
    expect(text).toMatch(/^invalid_arguments: /);
    expect(text).toContain("'scoop'");
    expect(text).toContain('gather');
    // Completing only the last step leaves the first one to do.
    const later = await next(['summary'], { files: ['x.ts'] });
    expect(later.isComplete).toBe(false);
    expect(later.step?.completionId).toBe('gather');
  });

  it('an invalid regex in validationCriteria is a load error with its position, not a run-time failure (issue 11)', async () => {
    const doc = JSON.parse(fs.readFileSync(path.join(__dirname, '../fixtures/workflows/code-review.json'), 'utf8'));
    doc.steps[0].validationCriteria = [{ type: 'regex', pattern: '(unclosed', message: 'm' }];
    const text = JSON.stringify(doc, null, 2);
    const r = await conn.client.callTool({ name: 'workflow_validate_json', arguments: { workflowJson: text } });
    const out = r.structuredContent as { valid: boolean; issues: Array<{ path: string; line: number; column: number; message: string }> };
    expect(out.valid).toBe(false);
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes('"(unclosed"')) + 1;
    expect(out.issues).toEqual([
      expect.objectContaining({ path: '/steps/0/validationCriteria/0/pattern', line, column: lines[line - 1].indexOf('"(unclosed"') + 1, message: expect.stringMatching(/invalid regex/) }),
    ]);
  });
});
