/**
 * The graph module's engine, host, file loader and MCP client pool for code outside the module (the CLI's `run` and
 * `validate`, the server's graph-tool publishing, the public library API), loaded on demand through `graphRuntime()`
 * in index.ts: JSONata, JSON Logic, yaml and the SDK client stay out of the server's cold start.
 */
export { GraphHost, loadGraph, expandGraphPaths } from './infrastructure/graph-host';
export { GraphFileLoader, validateGraphFile, graphSchemaPath } from './infrastructure/graph-file-loader';
export { GraphToolPublisher } from './infrastructure/graph-tool-publisher';
export { SdkMcpClientPool } from './infrastructure/mcp/sdk-mcp-client-pool';
export { GraphRunner } from './application/graph-runner';
export { DEFAULT_EXPRESSION_LIMITS } from './application/engine/jsonata-expression';
export { DEFAULT_EXECUTION_LIMITS } from './domain/types';
export { readMcpConfigFiles } from './infrastructure/mcp-config-file';
