import type { InjectionToken } from 'tsyringe';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ForbiddenError, InvalidArgumentsError } from '../kernel/errors';
import { hasScope } from '../kernel/identity';
import type { CallContext } from '../kernel/call-context';
import type { Logger } from '../kernel/logger';
import type { UseCase } from '../kernel/use-case';
import { toErrorResult } from './error-mapper';
import { InputRequest } from '../kernel/call-input';
import { rememberJson } from './known-json';
import { requiredScope, ToolResultWithMeta, type ToolDefinition } from '../kernel/tools/tool-definition';

/** What the dispatcher needs from the schema service (SchemaRegistry satisfies it). */
export interface JsonSchemaValidator {
  validate(schema: unknown, data: unknown): { valid: boolean; errors: { pointer: string; message: string }[] };
}

/**
 * Runs a declared tool: validates the arguments against its input schema, resolves its use case lazily, runs it and
 * shapes the answer. Shared by `tools/call` and the plain JSON-RPC methods.
 */
export class ToolDispatcher {
  constructor(
    private readonly validator: () => JsonSchemaValidator,
    private readonly resolve: <T>(token: InjectionToken<T>) => T,
    private readonly logger: Logger,
  ) {}

  /**
   * Checks `args` against the tool's input schema.
   * @throws InvalidArgumentsError naming the first offending field and what was expected (all of them in details).
   */
  checkArguments(def: ToolDefinition, args: unknown): Record<string, unknown> {
    const input = args ?? {};
    const { valid, errors } = this.validator().validate(def.inputSchema, input);
    if (!valid) {
      const shown = errors.slice(0, 3).map((e) => describeField(e.pointer, e.message));
      const more = errors.length > 3 ? ` (and ${errors.length - 3} more)` : '';
      throw new InvalidArgumentsError(`${shown.join('; ')}${more}`, errors[0]?.pointer ?? '', { errors });
    }
    return input as Record<string, unknown>;
  }

  /**
   * The caller's identity must hold the scope the tool's declaration asks for (see requiredScope).
   * @throws ForbiddenError naming the scope.
   */
  checkScope(def: ToolDefinition, ctx: CallContext): void {
    const scope = requiredScope(def);
    if (!hasScope(ctx.identity, scope)) throw new ForbiddenError(scope, def.name, ctx.identity.name, ctx.identity.scopes);
  }

  /** Checks the scope, validates and runs; returns the plain result and optional `_meta`. Throws what the use case throws. */
  async run(def: ToolDefinition, args: unknown, ctx: CallContext): Promise<{ value: object; meta?: Record<string, unknown> }> {
    this.checkScope(def, ctx);
    const input = this.checkArguments(def, args);
    let out: unknown;
    if (def.handler) out = await def.handler(input, ctx);
    else if (def.useCase) out = await this.resolve<UseCase<unknown, unknown>>(def.useCase).execute(input, ctx);
    else throw new Error(`tool ${def.name} declares neither useCase nor handler`);
    if (out instanceof ToolResultWithMeta) return { value: out.value, meta: out.meta };
    return { value: out as object };
  }

  /** `tools/call`: every failure becomes an `isError` result (see error-mapper). */
  async callTool(def: ToolDefinition, args: unknown, ctx: CallContext): Promise<CallToolResult> {
    try {
      const { value, meta } = await this.run(def, args, ctx);
      return {
        content: [{ type: 'text', text: rememberJson(value, JSON.stringify(value)) }],
        structuredContent: value as Record<string, unknown>,
        ...(meta ? { _meta: meta } : {}),
      };
    } catch (e) {
      // A question for the caller (modern era): the server turns it into an input_required result.
      if (e instanceof InputRequest) throw e;
      return toErrorResult(e, this.logger);
    }
  }
}

/** `/completedSteps/0` + "must be string" → "completedSteps/0: must be string"; root → "arguments: ...". */
function describeField(pointer: string, message: string): string {
  const field = pointer.replace(/^\//, '').replace(/~1/g, '/').replace(/~0/g, '~');
  return `${field || 'arguments'}: ${message}`;
}
