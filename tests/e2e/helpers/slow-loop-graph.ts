import * as path from 'node:path';

const TEST_SERVER = path.resolve(__dirname, '../../fixtures/mcp-servers/test-server.js');

/**
 * A graph file with one tool, `slow_loop {n, ms}`: n iterations, each waiting `ms` in a real MCP server's `slow` tool
 * (tests/fixtures/mcp-servers/test-server.js), counted by a transform and looped by a switch; it answers
 * `{iterations, waits, last}` (`last`: what `$previousNode()` answers in the final transform).
 * The live-run and debugger browser tests draw and drive it.
 */
export function slowLoopGraph(serverName: string): string {
  return `
version: "1.0"
server: { name: "${serverName}", version: "1.0.0" }
mcpServers:
  fixture: { command: "node", args: [${JSON.stringify(TEST_SERVER)}] }
tools:
  - name: "slow_loop"
    description: "Loops n times, each iteration waiting in a real MCP server"
    inputSchema: { type: "object", properties: { n: { type: "number", description: "iterations" }, ms: { type: "number", description: "wait per iteration" } }, required: ["n"] }
    outputSchema: { type: "object" }
    nodes:
      - id: "entry"
        type: "entry"
        next: "wait"
      - id: "wait"
        type: "mcp"
        server: "fixture"
        tool: "slow"
        args: { ms: "$.entry.ms" }
        next: "count"
      - id: "count"
        type: "transform"
        transform: { expr: '{ "i": $executionCount("count") + 1, "n": $.entry.n }' }
        next: "check"
      - id: "check"
        type: "switch"
        conditions:
          - rule: { "<": [{ "var": "$.count.i" }, { "var": "$.count.n" }] }
            target: "wait"
          - target: "done"
      - id: "done"
        type: "transform"
        transform: { expr: '{ "iterations": $.count.i, "waits": $executionCount("wait"), "last": $previousNode() }' }
        next: "exit"
      - id: "exit"
        type: "exit"
`;
}
