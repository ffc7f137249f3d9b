import { injectable } from 'tsyringe';
import type { UseCase } from '../../../../../kernel/use-case';
import type { ToolInput } from '../../../../../kernel/tools/tool-schema';
import type { graphTestJsonataSchemas, graphTestJsonLogicSchemas } from '../../graph-authoring.tool-schemas';
import { ExpressionTester, type ExpressionTestAnswer } from '../../services/expression-tester';

type TestJsonataInput = ToolInput<typeof graphTestJsonataSchemas>;
type TestJsonLogicInput = ToolInput<typeof graphTestJsonLogicSchemas>;

/** graph_test_jsonata: one JSONata expression evaluated as a graph node would (mcpgraph's testJSONata, with history). */
@injectable()
export class TestJsonata implements UseCase<TestJsonataInput, ExpressionTestAnswer> {
  private readonly tester = new ExpressionTester();

  execute(input: TestJsonataInput): Promise<ExpressionTestAnswer> {
    return this.tester.jsonata(input.expression, input.context as Record<string, unknown> | undefined, input.history ?? []);
  }
}

/** graph_test_json_logic: one switch rule evaluated as a switch node would (mcpgraph's testJSONLogic, with history). */
@injectable()
export class TestJsonLogic implements UseCase<TestJsonLogicInput, ExpressionTestAnswer> {
  private readonly tester = new ExpressionTester();

  execute(input: TestJsonLogicInput): Promise<ExpressionTestAnswer> {
    return this.tester.jsonLogic(input.rule, input.context as Record<string, unknown> | undefined, input.history ?? []);
  }
}
