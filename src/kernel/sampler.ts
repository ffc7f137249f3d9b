/** Asks the client's LLM for a completion (MCP sampling/createMessage). */
export interface Sampler {
  /** Returns the model's text answer. Rejects when the client refuses or fails. */
  complete(request: { systemPrompt?: string; prompt: string; maxTokens: number }, signal?: AbortSignal): Promise<string>;
}
