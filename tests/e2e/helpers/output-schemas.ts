import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/**
 * Checks every structuredContent a test observes against the tool's outputSchema as served by tools/list (the SDK
 * client checks too, but silently for tools it has not listed; this makes the check explicit and counts it).
 */
export class OutputSchemaChecker {
  private readonly validators = new Map<string, ValidateFunction>();
  /** How many results were checked, per tool. */
  readonly checked = new Map<string, number>();

  static async fromClient(client: Client): Promise<OutputSchemaChecker> {
    const checker = new OutputSchemaChecker();
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const { tools } = await client.listTools();
    for (const tool of tools) if (tool.outputSchema) checker.validators.set(tool.name, ajv.compile(tool.outputSchema));
    return checker;
  }

  /** Throws (failing the test) when a successful result's structuredContent does not match the tool's outputSchema. */
  check(toolName: string, result: { isError?: unknown; structuredContent?: unknown }): void {
    if (result.isError) {
      if (result.structuredContent !== undefined) throw new Error(`${toolName}: an error result must carry no structuredContent`);
      return;
    }
    const validate = this.validators.get(toolName);
    if (!validate) throw new Error(`${toolName}: no outputSchema in tools/list`);
    if (result.structuredContent === undefined) throw new Error(`${toolName}: a successful result has no structuredContent`);
    if (!validate(result.structuredContent)) {
      throw new Error(`${toolName}: structuredContent does not match outputSchema: ${JSON.stringify(validate.errors)}`);
    }
    this.checked.set(toolName, (this.checked.get(toolName) ?? 0) + 1);
  }
}
