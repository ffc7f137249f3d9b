import type { GraphIssue } from '../../domain/graph-issue';
import type {
  EntryNode,
  ExitNode,
  GraphConfig,
  GraphNode,
  GraphTool,
  McpNode,
  SwitchNode,
  TransformNode,
} from '../../domain/types';
import { compileArgs, type CompiledArgs } from './compiled-args';
import { createAjvValidatorFactory, type ValidatorFactory, type ValueValidator } from './input-validator';
import { CompiledJsonLogicRule } from './json-logic-rule';
import {
  compileJsonata,
  JsonataSyntaxError,
  DEFAULT_EXPRESSION_LIMITS,
  type CompiledJsonata,
  type ExpressionLimits,
  type RegexFallback,
} from './jsonata-expression';

/** A node with its expressions compiled, ready to run. */
export type CompiledNode =
  | { kind: 'entry'; node: EntryNode }
  | { kind: 'exit'; node: ExitNode }
  | { kind: 'transform'; node: TransformNode; expr: CompiledJsonata }
  | { kind: 'mcp'; node: McpNode; args: CompiledArgs }
  | { kind: 'switch'; node: SwitchNode; branches: Array<{ rule?: CompiledJsonLogicRule; target: string }> };

/** A tool ready to run: its nodes by id, its input validator, and the graph it belongs to. */
export interface CompiledTool {
  tool: GraphTool;
  graph: GraphConfig;
  nodes: ReadonlyMap<string, CompiledNode>;
  validateInput: ValueValidator;
}

/** Every tool of one graph file, compiled once per load and shared by all its runs. */
export interface CompiledGraph {
  config: GraphConfig;
  tools: ReadonlyMap<string, CompiledTool>;
  /**
   * What loads but deserves the author's eye, naming tool and node: regex literals that keep the native backtracking
   * engine (lookaround, backreferences), which JSONata's time limit cannot interrupt; `$`-strings of the older rule
   * that are not JSONata and stay literals; a file without tools. The server logs them at load.
   */
  warnings: GraphIssue[];
}

export interface CompileOptions {
  expressionLimits?: ExpressionLimits;
  validatorFactory?: ValidatorFactory;
}

/**
 * Compiles every JSONata expression, JSON Logic rule and input schema of a (structurally checked) config. Problems
 * — syntax errors, unknown JSON Logic operators, invalid input schemas — are returned as issues naming tool and node;
 * a tool with a problem is left out of the result.
 */
export function compileGraph(config: GraphConfig, options: CompileOptions = {}): { graph: CompiledGraph; issues: GraphIssue[] } {
  const limits = options.expressionLimits ?? DEFAULT_EXPRESSION_LIMITS;
  const factory = options.validatorFactory ?? createAjvValidatorFactory();
  const issues: GraphIssue[] = [];
  const warnings: GraphIssue[] = [];
  const tools = new Map<string, CompiledTool>();
  for (const tool of config.tools) {
    const before = issues.length;
    const nodes = new Map<string, CompiledNode>();
    for (const node of tool.nodes) {
      try {
        const compiled = compileNode(node, limits, (source, reason) =>
          warnings.push({
            tool: tool.name,
            node: node.id,
            message: `argument ${JSON.stringify(source)} starts with '$' but is not valid JSONata (${reason}): it is passed as a literal string (write {expr: ...} args to make every $-string plain text)`,
            position: node.position,
          }),
        );
        nodes.set(node.id, compiled);
        for (const f of regexFallbacks(compiled)) {
          warnings.push({
            tool: tool.name,
            node: node.id,
            message: `regular expression ${f.pattern} runs on the native backtracking engine (${f.reason}): input can make it run for a very long time, beyond the expression time limit`,
            position: node.position,
          });
        }
      } catch (err) {
        const expression = err instanceof JsonataSyntaxError && err.offset !== undefined ? { expression: { source: err.source, offset: err.offset } } : {};
        issues.push({ tool: tool.name, node: node.id, message: (err as Error).message, position: node.position, ...expression });
      }
    }
    let validateInput: ValueValidator = () => undefined;
    try {
      validateInput = factory(tool.inputSchema);
    } catch (err) {
      issues.push({ tool: tool.name, message: `inputSchema is not a valid JSON Schema: ${(err as Error).message}`, position: tool.position });
    }
    if (issues.length === before) tools.set(tool.name, { tool, graph: config, nodes, validateInput });
  }
  return { graph: { config, tools, warnings }, issues };
}

/** The regex literals of a node's expressions that RE2 cannot run. */
function regexFallbacks(node: CompiledNode): RegexFallback[] {
  switch (node.kind) {
    case 'transform':
      return [...node.expr.regexFallbacks];
    case 'mcp':
      return argExpressions(node.args).flatMap((e) => e.regexFallbacks);
    case 'switch':
      return node.branches.flatMap((b) => (b.rule ? b.rule.expressions.flatMap((e) => e.regexFallbacks) : []));
    default:
      return [];
  }
}

function argExpressions(args: CompiledArgs): CompiledJsonata[] {
  switch (args.kind) {
    case 'literal':
      return [];
    case 'expr':
      return [args.expr];
    case 'object':
      return args.entries.flatMap(([, v]) => argExpressions(v));
    case 'array':
      return args.items.flatMap(argExpressions);
  }
}

function compileNode(node: GraphNode, limits: ExpressionLimits, onLiteral: (source: string, reason: string) => void): CompiledNode {
  switch (node.type) {
    case 'entry':
      return { kind: 'entry', node };
    case 'exit':
      return { kind: 'exit', node };
    case 'transform':
      return { kind: 'transform', node, expr: compileJsonata(node.expr, limits) };
    case 'mcp':
      return { kind: 'mcp', node, args: compileArgs(node.args, limits, onLiteral) };
    case 'switch':
      return {
        kind: 'switch',
        node,
        branches: node.conditions.map((c, i) => {
          if (c.rule === undefined) return { target: c.target };
          try {
            return { rule: CompiledJsonLogicRule.compile(c.rule, limits), target: c.target };
          } catch (err) {
            throw new Error(`conditions[${i}]: ${(err as Error).message}`);
          }
        }),
      };
  }
}
