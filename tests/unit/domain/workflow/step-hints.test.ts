import { compileCurrentWorkflow } from '../../../../src/modules/workflow/domain/current-format/compile';
import type { PromptStep, LoopStep } from '../../../../src/modules/workflow/domain/types';

/**
 * Current-format step fields that used to be accepted and then ignored now act (issue 24's rule): functionReferences
 * show their definitions, expectedOutput and modelTier are in the prompt, notesOptional says so, a loop's fields are
 * its body's defaults; a reference nothing defines and a hasValidation without criteria are load errors.
 */
const base = { id: 'wg.hints', name: 'n', description: 'd', version: '1.0.0' };

test('functions, expected output, model tier and optional notes are compiled into the step hints', () => {
  const { workflow, problems } = compileCurrentWorkflow(
    {
      ...base,
      modelTier: 'mid',
      functionDefinitions: [{ name: 'table', definition: 'Use | a | b |.' }],
      steps: [
        { id: 'a', title: 'A', prompt: 'p', functionReferences: ['table()'], expectedOutput: 'A table.', notesOptional: true },
        { id: 'b', title: 'B', prompt: 'p', modelTier: 'lightweight', functionDefinitions: [{ name: 'own', definition: 'Mine.' }], expectedOutput: { ok: true } },
        {
          id: 'loop', type: 'loop', title: 'L', loop: { type: 'for', count: 2, maxIterations: 2 }, modelTier: 'heavy', notesOptional: true, requireConfirmation: true,
          functionDefinitions: [{ name: 'inner', definition: 'Loop text.' }], functionReferences: ['inner'],
          body: [{ id: 'c', title: 'C', prompt: 'p' }],
        },
      ],
    },
    () => undefined,
  );
  expect(problems).toEqual([]);
  const [a, b, loop] = workflow.steps as [PromptStep, PromptStep, LoopStep];
  expect(a.hintsSection).toBe(
    '## Functions\n### table\nUse | a | b |.\n\n## Expected output\nA table.\n\n## Model tier\nSuggested model tier for this step: mid (a hint for the client choosing the model; nothing enforces it).\n\n## Notes\nNotes are optional for this step: you may complete it without notesMarkdown when there is nothing worth keeping.',
  );
  expect(b.hintsSection).toContain('### own\nMine.');
  expect(b.hintsSection).toContain('```json\n{\n  "ok": true\n}\n```');
  expect(b.hintsSection).toContain('model tier for this step: lightweight');
  const c = (loop.body as PromptStep[])[0];
  expect(c.hintsSection).toContain('### inner\nLoop text.');
  expect(c.hintsSection).toContain('model tier for this step: heavy');
  expect(c.hintsSection).toContain('Notes are optional');
  expect(c.requireConfirmation).toBe(true);
});

test('a reference nothing defines and hasValidation without criteria are load errors naming the step', () => {
  const { problems } = compileCurrentWorkflow(
    { ...base, functionDefinitions: [{ name: 'table', definition: 't' }], steps: [{ id: 'a', title: 'A', prompt: 'p', functionReferences: ['tabel()'], hasValidation: true }] },
    () => undefined,
  );
  expect(problems).toEqual([
    { pointer: '/steps/0/functionReferences/0', message: "step 'a' references function 'tabel', which no functionDefinitions of the step, its loop or the workflow define (defined: table)" },
    { pointer: '/steps/0/hasValidation', message: "step 'a' says hasValidation: true but has no validationCriteria to check its output against" },
  ]);
});
