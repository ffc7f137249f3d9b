/** Where MCP is served over HTTP. */
export const MCP_PATH = '/mcp';
/** RFC 9728 protected-resource metadata of {@link MCP_PATH} (served when bearer authentication is on). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';
