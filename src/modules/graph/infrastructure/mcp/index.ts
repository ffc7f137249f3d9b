export { SdkMcpClientPool, DEFAULT_MCP_REQUEST_TIMEOUT_MS, type SdkMcpClientPoolOptions } from './sdk-mcp-client-pool';
export { StderrRingBuffer, DEFAULT_STDERR_TAIL_BYTES } from './stderr-ring-buffer';
