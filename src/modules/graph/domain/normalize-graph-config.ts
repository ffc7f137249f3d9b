import { DEFAULT_EXECUTION_LIMITS } from './types';
import type {
  ArgTemplate,
  GraphConfig,
  GraphFormat,
  GraphNode,
  GraphTool,
  McpServerConfig,
  SwitchCondition,
} from './types';
import { noPositions, type DocPath, type GraphIssue, type PositionLookup } from './graph-issue';

/**
 * Reads a parsed mcpgraph 0.1.x document (any of its three formats, told apart by shape) into the normalized
 * {@link GraphConfig}. Pure: the caller parses the file and supplies positions. The document is expected to have passed
 * spec/graph.schema.json already; anything still malformed is reported as an issue, never thrown.
 *
 * Formats:
 * - older: a top-level `nodes` list whose `entry`/`exit` nodes name their `tool`; servers under `servers`.
 * - nested: nodes under `tools[].nodes`; servers under `mcpServers`.
 * - newest: like nested (or older), but some `mcp` node argument is an `{expr}` object. Then `{expr}` objects are
 *   JSONata and `$`-strings are plain text; otherwise a string argument starting with `$` is JSONata.
 */
export function normalizeGraphConfig(
  doc: unknown,
  positionOf: PositionLookup = noPositions,
): { config: GraphConfig; issues: GraphIssue[] } {
  const issues: GraphIssue[] = [];
  const root = isRecord(doc) ? doc : {};
  const older = Array.isArray(root.nodes);
  const exprArgs = usesExprArgs(root);
  const format: GraphFormat = exprArgs ? 'newest' : older ? 'older' : 'nested';

  const serverRaw = isRecord(root.server) ? root.server : {};
  const server = {
    name: str(serverRaw.name) ?? 'graph',
    version: str(serverRaw.version) ?? '0.0.0',
    ...(str(serverRaw.title) !== undefined ? { title: str(serverRaw.title) } : {}),
    ...(str(serverRaw.description) !== undefined ? { description: str(serverRaw.description) } : {}),
    ...(str(serverRaw.instructions) !== undefined ? { instructions: str(serverRaw.instructions) } : {}),
  };

  const limitsRaw = isRecord(root.executionLimits) ? root.executionLimits : {};
  const executionLimits = {
    maxNodeExecutions: positiveInt(limitsRaw.maxNodeExecutions) ?? DEFAULT_EXECUTION_LIMITS.maxNodeExecutions,
    maxExecutionTimeMs: positiveInt(limitsRaw.maxExecutionTimeMs) ?? DEFAULT_EXECUTION_LIMITS.maxExecutionTimeMs,
  };

  // Both spellings are read whatever the format: `servers` (older) and `mcpServers` (nested, newest).
  const mcpServers: Record<string, McpServerConfig> = {};
  for (const key of ['servers', 'mcpServers'] as const) {
    const block = root[key];
    if (!isRecord(block)) continue;
    for (const [name, cfg] of Object.entries(block)) {
      if (isRecord(cfg)) mcpServers[name] = cfg as unknown as McpServerConfig;
    }
  }

  const toolsRaw = Array.isArray(root.tools) ? root.tools : [];
  const tools: GraphTool[] = [];
  const ctx: Ctx = { issues, positionOf, exprArgs };

  if (older) {
    const all = (root.nodes as unknown[]).map((n, i) => readNode(n, ['nodes', i], undefined, ctx));
    const entryTool = new Map<GraphNode, string | undefined>();
    (root.nodes as unknown[]).forEach((n, i) => {
      const node = all[i];
      if (node && (node.type === 'entry' || node.type === 'exit')) {
        const tool = isRecord(n) ? str(n.tool) : undefined;
        entryTool.set(node, tool);
        if (tool === undefined) {
          issues.push({ node: node.id, message: `${node.type} node must name its tool (field 'tool')`, position: node.position });
        } else if (!toolsRaw.some((t) => isRecord(t) && t.name === tool)) {
          issues.push({ node: node.id, message: `${node.type} node names tool '${tool}', which is not declared under 'tools'`, position: node.position });
        }
      }
    });
    toolsRaw.forEach((t, ti) => {
      const name = isRecord(t) ? str(t.name) : undefined;
      // A tool's nodes: its own entry/exit and every node that is not another tool's entry/exit (nodes are shared).
      const nodes = all.filter(
        (n): n is GraphNode => n !== undefined && (!entryTool.has(n) || entryTool.get(n) === name),
      );
      tools.push(readTool(t, ['tools', ti], nodes, ctx));
    });
  } else {
    toolsRaw.forEach((t, ti) => {
      const nodesRaw = isRecord(t) && Array.isArray(t.nodes) ? t.nodes : [];
      const toolName = isRecord(t) ? str(t.name) : undefined;
      const nodes = nodesRaw
        .map((n, i) => readNode(n, ['tools', ti, 'nodes', i], toolName, ctx))
        .filter((n): n is GraphNode => n !== undefined);
      if (isRecord(t) && !Array.isArray(t.nodes)) {
        issues.push({ tool: toolName, message: "has no 'nodes' list (nested format: nodes under tools[].nodes)", position: positionOf(['tools', ti]) });
      }
      tools.push(readTool(t, ['tools', ti], nodes, ctx));
    });
  }

  return { config: { format, server, executionLimits, mcpServers, tools }, issues };
}

interface Ctx {
  issues: GraphIssue[];
  positionOf: PositionLookup;
  exprArgs: boolean;
}

function readTool(raw: unknown, path: DocPath, nodes: GraphNode[], ctx: Ctx): GraphTool {
  const t = isRecord(raw) ? raw : {};
  const name = str(t.name) ?? '';
  const position = ctx.positionOf(path);
  const inputSchema = isRecord(t.inputSchema) ? t.inputSchema : { type: 'object' };
  if (isRecord(t.inputSchema) && t.inputSchema.type !== 'object') {
    ctx.issues.push({ tool: name, message: "inputSchema must be an object schema (type: 'object')", position: ctx.positionOf([...path, 'inputSchema']) });
  }
  const declaredOutput = isRecord(t.outputSchema) ? t.outputSchema : {};
  const wrapOutput = declaredOutput.type !== 'object';
  let description = str(t.description) ?? '';
  const outputSchema = wrapOutput
    ? { type: 'object', properties: { result: declaredOutput }, required: ['result'] }
    : declaredOutput;
  if (wrapOutput) {
    description = `${description}${description ? ' ' : ''}(The result is returned wrapped as {"result": ...}.)`;
  }
  const entries = nodes.filter((n) => n.type === 'entry');
  const exits = nodes.filter((n) => n.type === 'exit');
  return {
    name,
    description,
    inputSchema,
    outputSchema,
    wrapOutput,
    nodes,
    entryId: entries[0]?.id ?? '',
    exitId: exits[0]?.id ?? '',
    ...(position ? { position } : {}),
  };
}

function readNode(raw: unknown, path: DocPath, tool: string | undefined, ctx: Ctx): GraphNode | undefined {
  const position = ctx.positionOf(path);
  const pos = position ? { position } : {};
  if (!isRecord(raw)) {
    ctx.issues.push({ tool, message: 'a node must be an object', position });
    return undefined;
  }
  const id = str(raw.id);
  if (id === undefined || id === '') {
    ctx.issues.push({ tool, message: "a node has no 'id'", position });
    return undefined;
  }
  const next = str(raw.next);
  const needNext = (): string => {
    if (next === undefined) ctx.issues.push({ tool, node: id, message: `${String(raw.type)} node needs 'next'`, position });
    return next ?? '';
  };
  switch (raw.type) {
    case 'entry':
      return { id, type: 'entry', next: needNext(), ...pos };
    case 'exit':
      return { id, type: 'exit', ...pos };
    case 'transform': {
      const t = raw.transform;
      const expr = isRecord(t) ? str(t.expr) : typeof t === 'string' ? t : undefined;
      if (expr === undefined) ctx.issues.push({ tool, node: id, message: "transform node needs 'transform.expr' (a JSONata string)", position });
      return { id, type: 'transform', expr: expr ?? '', next: needNext(), ...pos };
    }
    case 'mcp': {
      const server = str(raw.server);
      const toolName = str(raw.tool);
      if (server === undefined) ctx.issues.push({ tool, node: id, message: "mcp node needs 'server'", position });
      if (toolName === undefined) ctx.issues.push({ tool, node: id, message: "mcp node needs 'tool'", position });
      const args = readArgs(raw.args ?? {}, [...path, 'args'], tool, id, ctx);
      return { id, type: 'mcp', server: server ?? '', tool: toolName ?? '', args, next: needNext(), ...pos };
    }
    case 'switch': {
      const conditions: SwitchCondition[] = [];
      const list = Array.isArray(raw.conditions) ? raw.conditions : [];
      list.forEach((c, i) => {
        const cPos = ctx.positionOf([...path, 'conditions', i]);
        if (!isRecord(c)) {
          ctx.issues.push({ tool, node: id, message: `conditions[${i}] must be an object`, position: cPos });
          return;
        }
        // `{rule?, target}` (older/nested) or `{rule, next}` (nested).
        const target = str(c.target) ?? str(c.next);
        if (target === undefined) {
          ctx.issues.push({ tool, node: id, message: `conditions[${i}] needs 'target' (or 'next')`, position: cPos });
          return;
        }
        conditions.push(c.rule === undefined || c.rule === null ? { target } : { rule: c.rule, target });
      });
      // The node's own `next` is the default when no condition matches.
      if (next !== undefined) conditions.push({ target: next });
      if (conditions.length === 0) ctx.issues.push({ tool, node: id, message: "switch node needs 'conditions'", position });
      return { id, type: 'switch', conditions, ...pos };
    }
    default:
      ctx.issues.push({
        tool,
        node: id,
        message: `unknown node type ${JSON.stringify(raw.type)} (expected entry, mcp, transform, switch or exit)`,
        position: ctx.positionOf([...path, 'type']) ?? position,
      });
      return undefined;
  }
}

function readArgs(value: unknown, path: DocPath, tool: string | undefined, node: string, ctx: Ctx): ArgTemplate {
  if (Array.isArray(value)) {
    return { kind: 'array', items: value.map((v, i) => readArgs(v, [...path, i], tool, node, ctx)) };
  }
  if (isRecord(value)) {
    if ('expr' in value && ctx.exprArgs) {
      if (Object.keys(value).length !== 1 || typeof value.expr !== 'string') {
        ctx.issues.push({
          tool,
          node,
          message: `argument ${pathText(path.slice(path.indexOf('args')))}: an {expr} object must have exactly one key 'expr' holding a JSONata string`,
          position: ctx.positionOf(path),
        });
        return { kind: 'literal', value: null };
      }
      return { kind: 'expr', expr: value.expr };
    }
    return { kind: 'object', entries: Object.entries(value).map(([k, v]) => [k, readArgs(v, [...path, k], tool, node, ctx)]) };
  }
  if (!ctx.exprArgs && typeof value === 'string' && value.startsWith('$')) return { kind: 'expr', expr: value, dollarString: true };
  return { kind: 'literal', value };
}

/** True when some `mcp` node argument (at any depth) is an `{expr}` object: the file is in the newest format. */
function usesExprArgs(root: Record<string, unknown>): boolean {
  const nodeLists: unknown[][] = [];
  if (Array.isArray(root.nodes)) nodeLists.push(root.nodes);
  if (Array.isArray(root.tools)) for (const t of root.tools) if (isRecord(t) && Array.isArray(t.nodes)) nodeLists.push(t.nodes);
  const hasExpr = (v: unknown): boolean =>
    Array.isArray(v) ? v.some(hasExpr) : isRecord(v) ? 'expr' in v || Object.values(v).some(hasExpr) : false;
  return nodeLists.some((list) => list.some((n) => isRecord(n) && n.type === 'mcp' && hasExpr(n.args)));
}

function pathText(path: DocPath): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}
