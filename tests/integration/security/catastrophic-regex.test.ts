import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../../src/kernel/logger';
import { ConditionEvaluator } from '../../../src/modules/workflow/application/services/condition-evaluator';
import { SchemaRegistry } from '../../../src/kernel/schema-registry';
import { ValidationEngine } from '../../../src/modules/workflow/application/services/validation-engine';
import { ExpressionError } from '../../../src/kernel/errors';
import { GraphHost, loadGraph } from '../../../src/modules/graph/infrastructure';
import { GraphToolPublisher } from '../../../src/modules/graph/infrastructure/graph-tool-publisher';
import { ToolRegistry } from '../../../src/kernel/tools/tool-registry';

/**
 * Issue 6 (docs/hardening.md): a regular expression with catastrophic backtracking, written in a trusted file, run on
 * agent-controlled input. On the native engine `/^(a+)+$/` against 40 `a`s and a `b` takes about 2^40 steps (hours),
 * and JSONata's time limit cannot interrupt one built-in step. On the linear engine it answers at once. The jest
 * timeout below is a liveness bound, not a speed figure.
 */
const LIVENESS_MS = 60_000;
const HOSTILE = `${'a'.repeat(40)}b`;

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-redos-'));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

let seq = 0;
async function graphFile(middle: Array<Record<string, unknown>>): Promise<string> {
  const file = path.join(dir, `g${seq++}.json`);
  const graph = {
    server: { name: 'redos', version: '1.0.0' },
    tools: [
      {
        name: 'probe_tool',
        description: 'probe',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        outputSchema: { type: 'object' },
        nodes: [{ id: 'entry', type: 'entry', next: middle[0]!.id }, ...middle, { id: 'exit', type: 'exit' }],
      },
    ],
  };
  await fs.writeFile(file, JSON.stringify(graph));
  return file;
}

async function run(host: GraphHost, text: string): Promise<unknown> {
  return (await host.executeTool('probe_tool', { text }).promise).result;
}

describe('a backtracking-prone regex in a graph expression', () => {
  it(
    'finishes with the right answer through $contains, $match and a switch rule',
    async () => {
      const file = await graphFile([
        {
          id: 'probe',
          type: 'transform',
          transform: {
            expr: '{"contains": $contains($.entry.text, /^(a+)+$/), "matches": $count($match($.entry.text, /^(a|aa)+$/)), "split": $count($split($.entry.text, /(a+)+b/))}',
          },
          next: 'route',
        },
        {
          id: 'route',
          type: 'switch',
          conditions: [{ rule: { '==': [{ var: '$contains($.entry.text, /^(\\w+\\s?)*$/)' }, true] }, target: 'exit' }, { target: 'exit' }],
        },
      ]);
      const host = await loadGraph(file);
      try {
        expect(host.graphs()[0]!.warnings).toEqual([]);
        // The exit returns the switch's output (its target), so the transform's value is read from the run history.
        const probeOutput = async (text: string) =>
          (await host.executeTool('probe_tool', { text }).promise).history.find((r) => r.nodeId === 'probe')!.output;
        expect(await probeOutput(HOSTILE)).toEqual({ contains: false, matches: 0, split: 2 });
        expect(await probeOutput('a'.repeat(40))).toEqual({ contains: true, matches: 1, split: 1 });
      } finally {
        await host.close();
      }
    },
    LIVENESS_MS,
  );

  it('a lookahead literal loads with a warning naming tool, node and pattern, and runs as before', async () => {
    const file = await graphFile([{ id: 'look', type: 'transform', transform: { expr: '{"r": $contains($.entry.text, /a(?=b)/)}' }, next: 'exit' }]);
    const host = await loadGraph(file);
    try {
      const [warning] = host.graphs()[0]!.warnings;
      expect(warning).toMatchObject({ tool: 'probe_tool', node: 'look' });
      expect(warning!.message).toBe(
        'regular expression /a(?=b)/ runs on the native backtracking engine (lookahead): input can make it run for a very long time, beyond the expression time limit',
      );
      expect(await run(host, 'xab')).toEqual({ r: true });
      expect(await run(host, 'xa')).toEqual({ r: false });
    } finally {
      await host.close();
    }
  });

  it('the server logs that warning when it publishes the graph file', async () => {
    const file = await graphFile([{ id: 'back', type: 'transform', transform: { expr: '$match($.entry.text, /(\\w)\\1/)' }, next: 'exit' }]);
    const warnings: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (msg) => void warnings.push(msg),
      error: () => undefined,
      child: () => logger,
    };
    const host = new GraphHost();
    const publisher = new GraphToolPublisher(host, new ToolRegistry(), logger, [file], { watch: false });
    try {
      await publisher.start();
      expect(host.hasTool('probe_tool')).toBe(true);
      expect(warnings).toEqual([
        expect.stringMatching(
          new RegExp(`^graph file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(:\\d+:\\d+)?: tool 'probe_tool', node 'back': regular expression /\\(\\\\w\\)\\\\1/ runs on the native backtracking engine \\(a backreference`),
        ),
      ]);
    } finally {
      publisher.close();
      await host.close();
    }
  });

  it(
    'a backreference pattern an agent slips in through $eval is refused with an expression_error, not run',
    async () => {
      const file = await graphFile([{ id: 'ev', type: 'transform', transform: { expr: '$eval($.entry.text)' }, next: 'exit' }]);
      const host = await loadGraph(file);
      try {
        const err = await run(host, `$contains("${HOSTILE}", /^(a|a)*\\1$/)`).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ExpressionError);
        expect((err as ExpressionError).message).toMatch(/node 'ev'.*needs the backtracking engine.*refused/);
        expect(await run(host, `$contains("${HOSTILE}", /^(a+)+$/)`)).toBe(false);
      } finally {
        await host.close();
      }
    },
    LIVENESS_MS,
  );
});

describe('a backtracking-prone workflow regex rule', () => {
  const engine = new ValidationEngine(new ConditionEvaluator(), new SchemaRegistry());

  it(
    'finishes with the right verdict on hostile output',
    () => {
      const rule = { type: 'regex' as const, pattern: '^(a+)+$', message: 'Only a' };
      const bad = engine.validate(rule, HOSTILE);
      expect(bad.valid).toBe(false);
      expect(bad.issues).toEqual(['Only a (output does not match /^(a+)+$/)']);
      expect(engine.validate(rule, 'a'.repeat(40)).valid).toBe(true);
      expect(engine.validate({ type: 'regex', pattern: '^(\\w+\\s?)*$', flags: 'i' }, `${'ab '.repeat(30)}!`).valid).toBe(false);
    },
    LIVENESS_MS,
  );

  it('a lookahead rule still works (native engine, as documented)', () => {
    expect(engine.validate({ type: 'regex', pattern: '^(?=.*\\d)(?=.*[a-z]).+$' }, 'abc1').valid).toBe(true);
    expect(engine.validate({ type: 'regex', pattern: '^(?=.*\\d)(?=.*[a-z]).+$' }, 'abc').valid).toBe(false);
  });
});
