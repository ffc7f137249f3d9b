import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import taskGraphSpec from '../../../spec/task-graph.schema.json';
import { taskNode } from '../../../src/modules/tasks/application/tasks.tool-schemas';
import { tasksTools } from '../../../src/modules/tasks';
import { createTaskGraph } from '../../../src/modules/tasks/domain';
import { shapeDifferences, type Schema } from '../../helpers/schema-shape';

/**
 * The task node, the knowledge node and the workflow step are each declared once (in their module's tool schemas);
 * the hand-written spec/*.schema.json files describe the stored forms. These tests hold the two together: same
 * property names and types (the stored form may be stricter), and a real value built by the domain passes both.
 */
describe('spec/*.schema.json against the typed declarations', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);

  describe('task node', () => {
    const spec = taskGraphSpec as unknown as Schema;
    const specNode = (spec.definitions as Record<string, Schema>).node;

    it('has the same properties and types in spec/task-graph.schema.json as the tools answer', () => {
      expect(shapeDifferences(taskNode, taskNode, specNode, spec)).toEqual([]);
    });

    it('is the one declaration every task tool answers with', () => {
      const nodeSchemas = tasksTools.flatMap((t) => {
        const props = (t.outputSchema.properties ?? {}) as Record<string, Schema>;
        const items = (props.nodes?.items as Schema | undefined) ?? undefined;
        return [props.node, items].filter((s): s is Schema => s !== undefined);
      });
      expect(nodeSchemas.length).toBeGreaterThanOrEqual(5);
      for (const s of nodeSchemas) expect(shapeDifferences(s, s, taskNode, taskNode)).toEqual([]);
    });

    it('accepts a node the domain builds, in both forms', () => {
      const graph = createTaskGraph({
        projectId: 'demo',
        projectName: 'demo',
        projectRoot: '/tmp/demo',
        now: '2026-01-01T00:00:00.000Z',
        nodes: [{ id: 'a', title: 'A', validation_command: 'true' }, { id: 'b', title: 'B', depends_on: ['a'] }],
      });
      ajv.addSchema(spec);
      const validateSpec = ajv.getSchema(`${spec.$id as string}#/definitions/node`)!;
      const validateWire = ajv.compile(taskNode);
      for (const node of graph.nodes) {
        expect(validateWire(node) ? [] : validateWire.errors).toEqual([]);
        expect(validateSpec(node) ? [] : validateSpec.errors).toEqual([]);
      }
    });

    it('notices a property the spec lacks', () => {
      const changed = { ...specNode, properties: { ...(specNode.properties as Schema) } };
      delete (changed.properties as Schema).owner;
      expect(shapeDifferences(taskNode, taskNode, changed, spec)).toEqual(['#/owner: only in the first schema']);
    });
  });
});
