import { graphRuntime } from '../../modules/graph';
import { registerGraphValidator } from './graph-validators';

/**
 * Plugs the graph module's checker into `workgraph validate`: parse with positions, spec/graph.schema.json, the
 * structural checks and expression compilation — every problem with its line and column. The graph code is
 * required on first use, so `workgraph validate` of workflow files alone never loads it.
 */
registerGraphValidator(async (file, text) => {
  const { GraphFileLoader } = graphRuntime();
  return (await new GraphFileLoader().checkWithWarnings(file, text)).map(({ line, column, message, severity }) => ({
    line,
    column,
    message,
    ...(severity ? { severity } : {}),
  }));
});
