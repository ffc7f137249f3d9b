import { taskPlanProblems } from '../../../../src/modules/tasks/domain/plan-checks';

/** The task plan check the plan-from-document workflow's last step runs: every problem at once, each with a pointer. */
const node = (id: string, depends_on: string[] = [], validation_command: string | undefined = `test ${id}`) => ({ id, title: id, depends_on, ...(validation_command !== undefined ? { validation_command } : {}) });

describe('taskPlanProblems', () => {
  it('a sound plan has none', () => {
    expect(taskPlanProblems({ nodes: [node('a'), node('b', ['a'])] })).toEqual([]);
  });

  it('names duplicates, unknown dependencies, the cycle and a task without a command, all at once', () => {
    const problems = taskPlanProblems({ nodes: [node('a', ['c']), node('b', ['a', 'ghost']), node('c', ['b']), node('d', [], ''), node('d')] });
    expect(problems).toEqual([
      { pointer: '/nodes/4/id', message: "duplicate task id 'd' (also nodes[3])" },
      { pointer: '/nodes/1/depends_on/1', message: "task 'b' depends on unknown task 'ghost' (not in the plan)" },
      { pointer: '/nodes/0/depends_on', message: 'dependency cycle: a -> c -> b -> a' },
      { pointer: '/nodes/3/validation_command', message: expect.stringMatching(/^task 'd' has no validation_command/) },
    ]);
  });

  it('a task depending on itself is a cycle of one', () => {
    expect(taskPlanProblems({ nodes: [node('a', ['a'])] })).toEqual([{ pointer: '/nodes/0/depends_on', message: 'dependency cycle: a -> a' }]);
  });

  it('uncheckedTasks excuses a task without a command, and must name tasks of the plan', () => {
    expect(taskPlanProblems({ nodes: [node('a', [], '  ')], uncheckedTasks: [{ id: 'a', reason: 'a person decides' }] })).toEqual([]);
    expect(taskPlanProblems({ nodes: [node('a')], uncheckedTasks: [{ id: 'zz', reason: 'r' }] })).toEqual([
      { pointer: '/uncheckedTasks/0/id', message: "uncheckedTasks names 'zz', which is not a task of the plan" },
    ]);
  });

  it('mode add: dependencies may be existing tasks, new ids may not clash with them; mode init takes no existing ids', () => {
    expect(taskPlanProblems({ mode: 'add', existingTaskIds: ['x'], nodes: [node('a', ['x'])] })).toEqual([]);
    expect(taskPlanProblems({ mode: 'add', existingTaskIds: ['a'], nodes: [node('a')] })).toEqual([{ pointer: '/nodes/0/id', message: "task id 'a' is already in the project (existingTaskIds)" }]);
    expect(taskPlanProblems({ existingTaskIds: ['x'], nodes: [node('a', ['x'])] })).toEqual([
      { pointer: '/existingTaskIds', message: "existingTaskIds: only for mode 'add' (a new project has no tasks yet)" },
    ]);
  });

  it('metadata past its bounds is named with its pointer, as init_project_graph would name it', () => {
    const problems = taskPlanProblems({ nodes: [{ ...node('a'), metadata: { k: 'x'.repeat(1001) } }] });
    expect(problems).toEqual([{ pointer: '/nodes/0/metadata/k', message: expect.stringMatching(/^nodes\[0\]\.metadata\.k: expected a string of at most 1000 characters/) }]);
  });
});
