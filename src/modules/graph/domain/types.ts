/**
 * The normalized graph model. Every mcpgraph 0.1.x config format (older top-level `nodes`, nested `tools[].nodes`,
 * newest `{expr}` args) is read into these types by the loader (src/infrastructure/graph/), so the engine and the rest
 * of workgraph only ever see one shape. Expressions are kept as source text here (the domain imports no expression
 * library); the application layer compiles them once per load.
 */

/** How to start or reach one MCP server an `mcp` node calls. */
export type McpServerConfig =
  | {
      /** Default when absent. */
      type?: 'stdio';
      command: string;
      args?: string[];
      cwd?: string;
      env?: Record<string, string>;
    }
  | {
      /** `sse`: the older HTTP+SSE transport (MCP 2024-11-05), for servers that have not moved to streamable HTTP. */
      type: 'http' | 'streamableHttp' | 'sse';
      url: string;
      headers?: Record<string, string>;
    };

/** The `server` block of a graph file: metadata of the MCP server mcpgraph would expose. */
export interface GraphServerInfo {
  name: string;
  version: string;
  title?: string;
  description?: string;
  instructions?: string;
}

/** Bounds of one run. Exceeding one ends the run with an ExecutionLimitError naming the limit. */
export interface ExecutionLimits {
  /** Default 1,000,000 (mcpgraph's 1,000 stops its own loop example at n >= 499). */
  maxNodeExecutions: number;
  /** Default 300,000 ms (5 minutes). */
  maxExecutionTimeMs: number;
}

export const DEFAULT_EXECUTION_LIMITS: Readonly<ExecutionLimits> = Object.freeze({
  maxNodeExecutions: 1_000_000,
  maxExecutionTimeMs: 300_000,
});

/** Which mcpgraph format a file was read as (told apart by shape). */
export type GraphFormat = 'older' | 'nested' | 'newest';

export type NodeType = 'entry' | 'mcp' | 'transform' | 'switch' | 'exit';

/** Where something was declared in its file (1-based), when the file was parsed with positions. */
export interface SourcePosition {
  line: number;
  column: number;
}

/**
 * An `mcp` node's argument template, normalized: literal values, JSONata expressions (a `$`-string in the older and
 * nested formats, an `{expr}` object in the newest), and objects/arrays containing either.
 */
export type ArgTemplate =
  | { kind: 'literal'; value: unknown }
  /**
   * `dollarString`: read with the older rule (a string starting with `$` is JSONata). Such a string that is not valid
   * JSONata (`"$5.00"`) stays a literal, with a load warning, instead of failing the file.
   */
  | { kind: 'expr'; expr: string; dollarString?: true }
  | { kind: 'object'; entries: Array<[string, ArgTemplate]> }
  | { kind: 'array'; items: ArgTemplate[] };

interface NodeBase {
  id: string;
  /** Position of the node in its file, when known. */
  position?: SourcePosition;
}

/** Outputs the tool arguments (validated against the tool's inputSchema). */
export interface EntryNode extends NodeBase {
  type: 'entry';
  next: string;
}

/** Calls `tool` on `server`; outputs structuredContent, else the first text content parsed as JSON, else the text. */
export interface McpNode extends NodeBase {
  type: 'mcp';
  server: string;
  tool: string;
  args: ArgTemplate;
  next: string;
}

/** Evaluates a JSONata expression over the context; outputs its value. */
export interface TransformNode extends NodeBase {
  type: 'transform';
  expr: string;
  next: string;
}

/** One branch of a switch. A branch without `rule` always matches (the default). */
export interface SwitchCondition {
  /** A JSON Logic rule; `var` operands are JSONata over the context. */
  rule?: unknown;
  target: string;
}

/**
 * Routes to the first condition whose rule is truthy; outputs the id of the node it routes to. The `{rule, next}`
 * form's node-level `next` becomes a final rule-less condition.
 */
export interface SwitchNode extends NodeBase {
  type: 'switch';
  conditions: SwitchCondition[];
}

/** Returns the previous node's output as the tool result. */
export interface ExitNode extends NodeBase {
  type: 'exit';
}

export type GraphNode = EntryNode | McpNode | TransformNode | SwitchNode | ExitNode;

/** One tool a graph declares, with its nodes. */
export interface GraphTool {
  name: string;
  /** As exposed; says so when the output is wrapped as `{result}`. */
  description: string;
  inputSchema: Record<string, unknown>;
  /** As exposed: always an object schema (a non-object schema is wrapped as `{result: <schema>}`). */
  outputSchema: Record<string, unknown>;
  /** True when the declared output schema was not an object schema: the exit output is returned as `{result}`. */
  wrapOutput: boolean;
  nodes: GraphNode[];
  entryId: string;
  exitId: string;
  position?: SourcePosition;
}

/** A loaded graph file, normalized. */
export interface GraphConfig {
  /** The file it came from (absolute), when loaded from a file. */
  file?: string;
  /** The revision of the text it was read from (a hash: what the authoring tools' writes are checked against). */
  revision?: string;
  format: GraphFormat;
  server: GraphServerInfo;
  executionLimits: ExecutionLimits;
  mcpServers: Record<string, McpServerConfig>;
  tools: GraphTool[];
}

/** A node's failure, as kept in the history (plain data). */
export interface NodeExecutionError {
  code: string;
  message: string;
  /** For a failed `mcp` node: the tail of the MCP server's stderr (what the dashboard shows beside the error). */
  stderrTail?: string;
}

/** One node execution of a run. `executionIndex` counts from 0 in the order nodes ran. */
export interface NodeExecutionRecord {
  executionIndex: number;
  nodeId: string;
  nodeType: NodeType;
  /** Milliseconds since the epoch. */
  startTime: number;
  endTime: number;
  /** endTime - startTime, in milliseconds. */
  duration: number;
  output: unknown;
  error?: NodeExecutionError;
}
