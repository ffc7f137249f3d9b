/**
 * The workflow session as an MCP Apps view, end to end (tests/e2e/helpers/apps-host: the real built server, the SDK's
 * v2 client as the host, the extension SDK's AppBridge framing the view in headless Chromium): a workflow_start
 * result draws the current step at once and the timeline read once with workflow_session; a later
 * workflow_continue result moves it on (the timeline's steps); a step that asks for confirmation gets Approve, which
 * becomes a workflow_checkpoint tool call with the continue token (and is in the session's timeline); a read-only
 * server offers no Approve.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { tempDir } from './helpers/server-process';
import { connectHost, cutLines, hostView, lowContrast, readViewHtml, until } from './helpers/apps-host';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(Number(process.env.APPS_TEST_TIMEOUT ?? 180_000));

type Json = Record<string, any>;
let data: { dir: string; cleanup: () => void };
let wf: { dir: string; cleanup: () => void };
let actions: { client: Client; close: () => Promise<void> };
let readOnly: { client: Client; close: () => Promise<void> };
let browser: Browser;

const WORKFLOW = {
  id: 'ship-it',
  name: 'Ship it',
  description: 'Draft a change, then ship it once the person agrees.',
  version: '1.0.0',
  steps: [
    { id: 'draft', title: 'Draft the change', prompt: 'Write the change.' },
    { id: 'ship', title: 'Ship the change', prompt: 'Ship it.', requireConfirmation: true },
  ],
};

async function call(client: Client, name: string, args: Json): Promise<Json> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r as Json;
}

beforeAll(async () => {
  data = tempDir('wg-apps-session-');
  wf = tempDir('wg-apps-session-wf-');
  fs.writeFileSync(path.join(wf.dir, 'ship-it.json'), JSON.stringify(WORKFLOW));
  const args = ['--workflows', wf.dir];
  actions = await connectHost({ dataDir: data.dir, args: [...args, '--allow-actions'] });
  readOnly = await connectHost({ dataDir: data.dir, args });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await actions?.close();
  await readOnly?.close();
  data?.cleanup();
  wf?.cleanup();
});

const open = async (client: Client, html: string, result: Json, width = 1200) =>
  hostView(browser, { html, result, width, height: 700, callTool: async (name, a) => (await client.callTool({ name, arguments: a })) as Json });

test('a workflow_start result, then workflow_continue: the current step, the steps, the timeline; Approve becomes workflow_checkpoint', async () => {
  const html = await readViewHtml(actions.client, 'session');
  const start = await call(actions.client, 'workflow_start', { workflowId: 'ship-it', goal: 'Ship the JSON flag', workspacePath: data.dir });
  const v = await open(actions.client, html, start);
  try {
    await until(() => v.view.locator('[data-testid="current-title"]').textContent(), (t) => expect(t).toContain('Draft the change'));
    // The history is not in the answer: read once.
    await until(() => v.view.locator('[data-testid="steps"] li').count(), (n) => expect(n).toBe(2));
    expect((await v.calls()).map((c) => c.name)).toEqual(['workflow_session']);
    expect(await v.view.locator('[data-step="draft"]').getAttribute('data-state')).toBe('current');
    expect(await v.view.locator('[data-testid="approve-step"]').count()).toBe(0);

    // The agent finishes the draft: the host hands the view that answer.
    const next = await call(actions.client, 'workflow_continue', { continueToken: start.structuredContent.continueToken, output: { notesMarkdown: 'Drafted the **flag**.' } });
    expect(next.structuredContent.step.id).toBe('ship');
    await v.sendResult(next);
    await until(() => v.view.locator('[data-step="draft"]').getAttribute('data-state'), (s) => expect(s).toBe('done'));
    expect(await v.view.locator('[data-step="draft"] .note').textContent()).toContain('Drafted the flag');
    await until(() => v.view.locator('[data-testid="session-timeline"] li').count(), (n) => expect(n).toBeGreaterThanOrEqual(2));
    await v.page.screenshot({ path: screenshotPath('mcp-apps-session-1200') });

    await v.view.locator('[data-testid="approve-step"]').click();
    await until(() => v.view.locator('[data-testid="approved"]').count(), (n) => expect(n).toBe(1));
    const checkpoint = (await v.calls()).find((c) => c.name === 'workflow_checkpoint')!;
    expect(checkpoint.arguments).toEqual({ continueToken: next.structuredContent.continueToken, note: 'Approved by the person in the session view: Ship the change (ship)' });
    const session = await call(actions.client, 'workflow_session', { sessionId: start.structuredContent.sessionId });
    expect(session.structuredContent.events.map((e: Json) => e.kind)).toContain('checkpoint_created');
    expect(session.structuredContent.checkpoints).toBe(1);
  } finally {
    await v.close();
  }
});

test('a workflow_session result is drawn as is, readable at 400 px; a read-only server offers no Approve', async () => {
  const html = await readViewHtml(readOnly.client, 'session');
  const start = await call(readOnly.client, 'workflow_start', { workflowId: 'ship-it', workspacePath: data.dir });
  const next = await call(readOnly.client, 'workflow_continue', { continueToken: start.structuredContent.continueToken, output: { notesMarkdown: 'Drafted.' } });
  const v = await open(readOnly.client, html, next, 400);
  try {
    await until(() => v.view.locator('[data-testid="confirmation"]').count(), (n) => expect(n).toBe(1));
    expect(await v.view.locator('[data-testid="approve-step"]').count()).toBe(0);
    const m = await v.view.evaluate(() => {
      const doc = (globalThis as any).document;
      return { scroll: doc.documentElement.scrollWidth, width: doc.documentElement.clientWidth };
    });
    expect(m.scroll).toBeLessThanOrEqual(m.width);
    // The confirmation notice, the status line: readable whole (light and dark).
    expect(await cutLines(v.view)).toEqual([]);
    await v.page.screenshot({ path: screenshotPath('mcp-apps-session-400') });
    await v.setContext({ theme: 'dark' });
    await until(() => v.view.evaluate(() => (globalThis as any).document.documentElement.dataset.theme), (t) => expect(t).toBe('dark'));
    expect(await lowContrast(v.view)).toEqual([]);
    expect(await cutLines(v.view)).toEqual([]);
    await v.page.screenshot({ path: screenshotPath('mcp-apps-session-400-dark') });
  } finally {
    await v.close();
  }
  const session = await call(readOnly.client, 'workflow_session', { sessionId: start.structuredContent.sessionId });
  const w = await open(readOnly.client, html, session);
  try {
    await until(() => w.view.locator('[data-testid="steps"] li').count(), (n) => expect(n).toBe(2));
    expect(await w.view.locator('[data-testid="session-status"]').textContent()).toBe('active');
    expect(await w.calls()).toEqual([]);
  } finally {
    await w.close();
  }
});
