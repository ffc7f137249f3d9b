import * as fs from 'node:fs';
import * as path from 'node:path';
import { initProjectGraphSchemas } from '../../../src/modules/tasks/application/tasks.tool-schemas';
import { addTasksSchemas } from '../../../src/modules/tasks/application/task-plan-edit.tool-schemas';
import { CONTRACTS } from '../../../src/modules/workflow/domain/current-format/contracts';
import { taskPlanContractRule } from '../../../src/modules/tasks/application/services/task-plan-contract';

/**
 * spec/contracts/task_plan.schema.json's nodes are exactly the nodes init_project_graph and add_tasks take (issue 22:
 * the accepted plan is what the agent sends them): a change to the task node definition that the contract does not
 * follow fails here. The example a step answer shows passes the server's own plan check.
 */
const contract = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../spec/contracts/task_plan.schema.json'), 'utf8'));

test('the contract nodes are the init_project_graph / add_tasks node definition, unchanged', () => {
  const node = JSON.parse(JSON.stringify(initProjectGraphSchemas.inputSchema.properties.nodes.items));
  expect(contract.properties.nodes.items).toEqual(node);
  expect(JSON.parse(JSON.stringify(addTasksSchemas.inputSchema.properties.nodes.items))).toEqual(node);
  expect(contract.properties.nodes.maxItems).toBe(addTasksSchemas.inputSchema.properties.nodes.maxItems);
});

test('the example of wr.contracts.task_plan passes the plan check', () => {
  expect(taskPlanContractRule.check(CONTRACTS['wr.contracts.task_plan'].example)).toEqual([]);
});
