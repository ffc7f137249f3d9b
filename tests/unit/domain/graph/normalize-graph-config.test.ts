import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { normalizeGraphConfig } from '../../../../src/modules/graph/domain/normalize-graph-config';
import type { McpNode, SwitchNode } from '../../../../src/modules/graph/domain/types';

const fixtures = path.join(__dirname, '../../../fixtures/graphs');
const read = (name: string): unknown => parse(fs.readFileSync(path.join(fixtures, name), 'utf8'));

describe('normalizeGraphConfig', () => {
  it('reads the older format: top-level nodes, servers, entry/exit naming their tool, $-strings as JSONata', () => {
    const { config, issues } = normalizeGraphConfig(read('older-format.yaml'));
    expect(issues).toEqual([]);
    expect(config.format).toBe('older');
    expect(config.mcpServers).toEqual({ files: { command: 'node', args: ['fake-server.js'] } });
    const tool = config.tools[0]!;
    expect(tool.name).toBe('older_list');
    expect(tool.entryId).toBe('start');
    expect(tool.exitId).toBe('done');
    expect(tool.nodes.map((n) => n.id)).toEqual(['start', 'list', 'count', 'done']);
    const mcp = tool.nodes[1] as McpNode;
    expect(mcp.args).toEqual({
      kind: 'object',
      entries: [
        ['path', { kind: 'expr', expr: '$.start.dir', dollarString: true }],
        ['label', { kind: 'literal', value: 'plain text' }],
      ],
    });
  });

  it('splits the older format shared node list between tools by the tool their entry and exit name', () => {
    const doc = {
      server: { name: 's', version: '1' },
      tools: [
        { name: 'a', description: '', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } },
        { name: 'b', description: '', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } },
      ],
      nodes: [
        { id: 'a_in', type: 'entry', tool: 'a', next: 'shared' },
        { id: 'b_in', type: 'entry', tool: 'b', next: 'shared' },
        { id: 'shared', type: 'transform', transform: { expr: '1' }, next: 'a_out' },
        { id: 'a_out', type: 'exit', tool: 'a' },
        { id: 'b_out', type: 'exit', tool: 'b' },
      ],
    };
    const { config, issues } = normalizeGraphConfig(doc);
    expect(issues).toEqual([]);
    expect(config.tools[0]!.nodes.map((n) => n.id)).toEqual(['a_in', 'shared', 'a_out']);
    expect(config.tools[1]!.nodes.map((n) => n.id)).toEqual(['b_in', 'shared', 'b_out']);
  });

  it('reports an older-format entry naming an undeclared tool', () => {
    const { issues } = normalizeGraphConfig({
      server: { name: 's', version: '1' },
      tools: [],
      nodes: [{ id: 'in', type: 'entry', tool: 'ghost', next: 'out' }],
    });
    expect(issues[0]!.message).toBe("entry node names tool 'ghost', which is not declared under 'tools'");
    expect(issues[0]!.node).toBe('in');
  });

  it('reads the nested format with both switch forms and the node next as the default', () => {
    const { config, issues } = normalizeGraphConfig(read('nested-format.yaml'));
    expect(issues).toEqual([]);
    expect(config.format).toBe('nested');
    expect(config.server.title).toBe('Nested format');
    const route = config.tools[0]!.nodes.find((n) => n.id === 'route') as SwitchNode;
    expect(route.conditions).toEqual([
      { rule: { '>': [{ var: '$.entry.x' }, 100] }, target: 'big' },
      { rule: { '<': [{ var: '$.entry.x' }, 0] }, target: 'negative' },
      { target: 'small' },
    ]);
    const small = config.tools[0]!.nodes.find((n) => n.id === 'small') as McpNode;
    expect(small.args).toEqual({
      kind: 'object',
      entries: [
        ['value', { kind: 'expr', expr: '$.entry.x', dollarString: true }],
        ['nested', { kind: 'object', entries: [['list', { kind: 'array', items: [{ kind: 'expr', expr: '$string($.entry.x)', dollarString: true }, { kind: 'literal', value: 3 }] }]] }],
      ],
    });
  });

  it('reads the newest format: {expr} objects are JSONata and $-strings are plain text', () => {
    const { config, issues } = normalizeGraphConfig(read('newest-format.yaml'));
    expect(issues).toEqual([]);
    expect(config.format).toBe('newest');
    expect(config.mcpServers.files).toEqual({ type: 'streamableHttp', url: 'http://127.0.0.1:9/mcp' });
    const call = config.tools[0]!.nodes[1] as McpNode;
    expect(call.args).toEqual({
      kind: 'object',
      entries: [
        ['greeting', { kind: 'expr', expr: '"hello " & $.entry.name' }],
        ['literal', { kind: 'literal', value: '$.entry.name' }],
        ['items', { kind: 'array', items: [{ kind: 'expr', expr: '$length($.entry.name)' }, { kind: 'literal', value: 'x' }] }],
      ],
    });
  });

  it('reports an {expr} object with other keys', () => {
    const { issues } = normalizeGraphConfig({
      server: { name: 's', version: '1' },
      mcpServers: { s: { command: 'x' } },
      tools: [
        {
          name: 't', description: '', inputSchema: { type: 'object' }, outputSchema: { type: 'object' },
          nodes: [{ id: 'm', type: 'mcp', server: 's', tool: 'x', args: { a: { expr: '1', other: 2 } }, next: 'e' }],
        },
      ],
    });
    expect(issues.map((i) => i.message)).toEqual([
      "argument args.a: an {expr} object must have exactly one key 'expr' holding a JSONata string",
    ]);
  });

  it('wraps a non-object output schema as {result} and says so in the description', () => {
    const { config } = normalizeGraphConfig(read('nested-format.yaml'));
    const tool = config.tools[0]!;
    expect(tool.wrapOutput).toBe(true);
    expect(tool.outputSchema).toEqual({ type: 'object', properties: { result: { type: 'string' } }, required: ['result'] });
    expect(tool.description).toBe('Classifies a number with both switch condition forms (The result is returned wrapped as {"result": ...}.)');
  });

  it('keeps an object output schema as it is', () => {
    const { config } = normalizeGraphConfig(read('older-format.yaml'));
    expect(config.tools[0]!.wrapOutput).toBe(false);
    expect(config.tools[0]!.outputSchema).toEqual({ type: 'object', properties: { count: { type: 'number' } } });
  });

  it('defaults the execution limits to 1,000,000 executions and 300,000 ms, and reads given ones', () => {
    expect(normalizeGraphConfig(read('nested-format.yaml')).config.executionLimits).toEqual({
      maxNodeExecutions: 1_000_000,
      maxExecutionTimeMs: 300_000,
    });
    const doc = { server: { name: 's', version: '1' }, executionLimits: { maxNodeExecutions: 5 }, tools: [] };
    expect(normalizeGraphConfig(doc).config.executionLimits).toEqual({ maxNodeExecutions: 5, maxExecutionTimeMs: 300_000 });
  });

  it('reports an unknown node type and a missing next', () => {
    const { issues } = normalizeGraphConfig({
      server: { name: 's', version: '1' },
      tools: [
        {
          name: 't', description: '', inputSchema: { type: 'object' }, outputSchema: { type: 'object' },
          nodes: [{ id: 'a', type: 'entry' }, { id: 'b', type: 'loop' }],
        },
      ],
    });
    expect(issues.map((i) => `${i.node}: ${i.message}`)).toEqual([
      "a: entry node needs 'next'",
      'b: unknown node type "loop" (expected entry, mcp, transform, switch or exit)',
    ]);
  });
});
