import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import taskGraphSpec from '../../../spec/task-graph.schema.json';
import knowledgeSpec from '../../../spec/knowledge-node.schema.json';
import workflowSpec from '../../../spec/workflow.schema.json';
import { nodeOut } from '../../../src/modules/knowledge/application/knowledge-node.schemas';
import { previewStep, returnedStep, sessionStep, stepCore } from '../../../src/modules/workflow/application/workflow-step.schemas';
import { taskNode } from '../../../src/modules/tasks/application/task-node.schemas';
import { tasksTools } from '../../../src/modules/tasks';
import { workflowTools } from '../../../src/modules/workflow';
import { createTaskGraph } from '../../../src/modules/tasks/domain';
import { SchemaRegistry } from '../../../src/kernel/schema-registry';
import { ConditionEvaluator } from '../../../src/modules/workflow/application/services/condition-evaluator';
import { StepOutputChecker } from '../../../src/modules/workflow/application/services/step-output-checker';
import { nextStep } from '../../../src/modules/workflow/application/services/next-step-engine';
import { ContractSchemaFiles } from '../../../src/modules/workflow/infrastructure/contract-schema-files';
import { loadWorkflow } from '../application/workflow-test-helpers';
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

  describe('knowledge node', () => {
    const spec = knowledgeSpec as unknown as Schema;
    const specNode = (spec.definitions as Record<string, Schema>).node;

    it('has the same properties and types in spec/knowledge-node.schema.json as get_node answers', () => {
      expect(shapeDifferences(nodeOut, nodeOut, specNode, spec)).toEqual([]);
    });
  });

  describe('workflow step', () => {
    const spec = workflowSpec as unknown as Schema;
    const defs = spec.definitions as Record<string, Schema>;
    /** The step as a file gives it: a classic prompt step and a current-format one (their properties together). */
    const fileStep: Schema = {
      type: 'object',
      properties: { ...(defs.promptStep.properties as Schema), ...(defs.currentPromptStep.properties as Schema) },
    };
    /** What the answers add to a step: where it sits, and the current format's resolved extras. */
    const derived = ['completionId', 'loop', 'confirmation', 'assessments', 'delegations', 'fragments', 'verificationCommand'];

    /** The session tools' step is `sessionStep`: the step object, or null when the run is complete. */
    const sessionObject = sessionStep.anyOf[0] as Schema;
    /** Every answer that hands out a step, with the step object it declares. */
    const answers: [string, Schema][] = [
      ['workflow_get preview', previewStep],
      ['workflow_next', returnedStep],
      ['the session tools (workflow_start, workflow_continue, workflow_resume)', sessionObject],
    ];

    it.each(answers)("%s answers the file step's fields with the types spec/workflow.schema.json gives them", (_name, answered) => {
      const props = answered.properties as Record<string, Schema>;
      const fromFile = Object.fromEntries(Object.entries(props).filter(([k]) => !derived.includes(k)));
      expect(Object.keys(fromFile).filter((k) => !(k in (fileStep.properties as Schema)))).toEqual([]);
      const fileSide = { ...fileStep, properties: Object.fromEntries(Object.keys(fromFile).map((k) => [k, (fileStep.properties as Schema)[k]])) };
      // requireConfirmation: the file may say a condition or {kind}; answers say the boolean it resolved to.
      // outputContract: answers add the example and where the schema is to the file's {contractRef, required}.
      const differences = shapeDifferences({ ...answered, properties: fromFile }, answered, fileSide, spec);
      expect(differences.filter((d) => !d.startsWith('#/requireConfirmation:') && !d.startsWith('#/outputContract'))).toEqual([]);
    });

    it.each(answers)('%s extends the one step core: every core field, with its type', (_name, answered) => {
      const props = answered.properties as Record<string, Schema>;
      const core = stepCore.properties as Record<string, Schema>;
      const coreOnly = { ...answered, properties: Object.fromEntries(Object.keys(core).filter((k) => k in props).map((k) => [k, props[k]])) };
      expect(shapeDifferences(coreOnly, coreOnly, stepCore, stepCore).filter((d) => !d.endsWith('only in the second schema'))).toEqual([]);
      // The preview shows the step's text instead of saying whether the server checks its output.
      const missing = Object.keys(core).filter((k) => !(k in props));
      expect(missing).toEqual(answered === previewStep ? ['hasValidation'] : []);
      for (const k of ['id', 'title', 'completionId']) expect(answered.required).toContain(k);
    });

    it('is the step every tool that hands one out answers with', () => {
      const byName = new Map(workflowTools.map((t) => [t.name, t]));
      const stepOf = (tool: string, pick: (props: Record<string, Schema>) => Schema | undefined) =>
        pick(byName.get(tool)!.outputSchema.properties as Record<string, Schema>);
      expect(stepOf('workflow_next', (p) => p.step)).toEqual({ anyOf: [returnedStep, { type: 'null' }] });
      expect(stepOf('workflow_start', (p) => p.step)).toBe(sessionStep);
      expect(stepOf('workflow_continue', (p) => p.step)).toBe(sessionStep);
      const candidate = stepOf('workflow_resume', (p) => (p.candidates.items as Schema).properties as Schema);
      expect((candidate as Record<string, Schema>).step).toBe(sessionStep);
      const firstStep = stepOf('workflow_get', (p) => p.firstStep);
      expect((firstStep!.anyOf as Schema[])[0]).toBe(previewStep);
    });

    it('accepts the step the engine builds, in every answer that carries it', () => {
      // code-review.json: a forEach loop over `files` whose step has validationCriteria.
      const workflow = loadWorkflow('tests/fixtures/workflows/code-review.json');
      const answer = nextStep(workflow, ['gather', 'threat-model'], { files: ['a.ts'] }, undefined, new ConditionEvaluator(), new StepOutputChecker(new SchemaRegistry(), new ContractSchemaFiles()));
      expect(answer.step).toMatchObject({ id: 'review', completionId: 'review-files[0].review', loop: { id: 'review-files', iteration: 0 }, hasValidation: true });
      for (const schema of [{ anyOf: [returnedStep, { type: 'null' }] }, sessionStep]) {
        const validate = ajv.compile(schema);
        expect(validate(answer.step) ? [] : validate.errors).toEqual([]);
        expect(validate({ ...answer.step, completionId: 7 })).toBe(false);
      }
    });
  });
});
