import * as fs from 'node:fs';
import * as path from 'node:path';
import { SchemaRegistry } from '../../../src/kernel/schema-registry';
import { WorkflowDocumentChecker } from '../../../src/modules/workflow/application/services/workflow-document-checker';
import { REFUSED_FIELDS } from '../../../src/modules/workflow/domain/current-format/refused-fields';

/**
 * Issue 24's rule: a field spec/workflow.schema.json accepts either acts or is refused with a clear error. Every
 * property the schema accepts (each definition's, and those of the objects nested in it) must be listed in
 * docs/writing-workflows.md "What each field does" — as acting, served as metadata, or for editors — and nothing the
 * table does not know may be accepted. An acting field must be read somewhere in the workflow module's code (its name
 * appears outside the type declarations, the format detector and the tool schemas), a served one must be among the
 * metadata workflow_get serves; a refused field is absent from the schema and its refusal says why.
 */
const ROOT = path.join(__dirname, '../../..');
const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'spec/workflow.schema.json'), 'utf8')) as { definitions: Record<string, Record<string, unknown>> };
const docs = fs.readFileSync(path.join(ROOT, 'docs/writing-workflows.md'), 'utf8');

type Node = Record<string, unknown>;
function fieldsOf(definition: Node): string[] {
  const out: string[] = [];
  const nested = (v: unknown, prefix: string): void => {
    if (!v || typeof v !== 'object' || (v as Node).$ref) return;
    const node = v as Node;
    if (node.properties) {
      for (const [k, child] of Object.entries(node.properties as Record<string, unknown>)) {
        out.push(prefix + k);
        nested(child, `${prefix}${k}.`);
      }
    }
    if (node.items && typeof node.items === 'object') nested(node.items, prefix);
    for (const key of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(node[key])) (node[key] as unknown[]).forEach((x) => nested(x, prefix));
  };
  nested(definition, '');
  return [...new Set(out)];
}

const accepted = new Map(
  Object.entries(schema.definitions)
    .map(([name, def]) => [name, fieldsOf(def)] as const)
    .filter(([, fields]) => fields.length > 0),
);

interface Row {
  acts: string[];
  served: string[];
  editors: string[];
}
const table = new Map<string, Row>();
{
  const section = docs.slice(docs.indexOf('\n## What each field does'));
  const cells = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  for (const line of section.split('\n')) {
    const m = /^\| `([A-Za-z]+)` \|(.*)\|(.*)\|(.*)\|$/.exec(line);
    if (m) table.set(m[1], { acts: cells(m[2]), served: cells(m[3]), editors: cells(m[4]) });
  }
}

/** The workflow module's code that reads workflows (declarations and the format detector do not count as reading). */
const code = (() => {
  const dir = path.join(ROOT, 'src/modules/workflow');
  const skip = /(domain\/types\.ts|detect-format\.ts|tool-schemas\.ts|workflow-step\.schemas\.ts|refused-fields\.ts)$/;
  const texts: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts') && !skip.test(p.replace(/\\/g, '/'))) texts.push(fs.readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return texts.join('\n');
})();
const servedMetadata = /const CURRENT_METADATA = \[([^\]]*)\]/.exec(fs.readFileSync(path.join(ROOT, 'src/modules/workflow/application/use-cases/get-workflow.ts'), 'utf8'))![1];

test('the docs table lists every field the schema accepts, and nothing else', () => {
  const problems: string[] = [];
  for (const [definition, fields] of accepted) {
    const row = table.get(definition);
    if (!row) {
      problems.push(`${definition}: no row in docs/writing-workflows.md "What each field does" (fields: ${fields.join(', ')})`);
      continue;
    }
    const listed = [...row.acts, ...row.served, ...row.editors];
    for (const f of fields) if (!listed.includes(f)) problems.push(`${definition}.${f}: accepted by the schema but not in the docs table: make it act (and list it) or refuse it`);
    for (const f of listed) if (!fields.includes(f)) problems.push(`${definition}.${f}: in the docs table but not in the schema`);
  }
  for (const definition of table.keys()) if (!accepted.has(definition)) problems.push(`${definition}: a docs row for no schema definition with properties`);
  expect(problems).toEqual([]);
});

test('every acting field is read by the workflow module, every served one is served by workflow_get', () => {
  const problems: string[] = [];
  for (const [definition, row] of table) {
    for (const f of row.acts) {
      const name = f.split('.').pop()!;
      if (!new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`).test(code)) problems.push(`${definition}.${f}: listed as acting, but no code of src/modules/workflow reads '${name}'`);
    }
    for (const f of row.served) {
      const top = definition === 'assessmentDefinition' ? 'assessments' : f.split('.')[0];
      if (!servedMetadata.includes(`'${top}'`)) problems.push(`${definition}.${f}: listed as served, but workflow_get's CURRENT_METADATA has no '${top}'`);
    }
  }
  expect(problems).toEqual([]);
});

test('a refused field is not in the schema, is in the docs, and its refusal names it and says why', () => {
  const checker = new WorkflowDocumentChecker(new SchemaRegistry(), schema as unknown as Record<string, unknown>);
  const all = [...accepted.values()].flat().map((f) => f.split('.').pop());
  const refusedSection = docs.slice(docs.indexOf('\n### Refused fields'));
  for (const [field, reason] of Object.entries(REFUSED_FIELDS)) {
    expect(all).not.toContain(field);
    expect(refusedSection).toContain(`| \`${field}\``);
    const step: Record<string, unknown> = { id: 's', title: 'S', prompt: 'p' };
    const doc: Record<string, unknown> = { id: 'wg.refused', name: 'n', description: 'd', version: '1.0.0', steps: [step] };
    if (field === 'extensionPoints') doc[field] = [];
    else step[field] = [];
    const problems = checker.check(doc);
    expect(problems).toEqual([expect.objectContaining({ pointer: field === 'extensionPoints' ? `/${field}` : `/steps/0/${field}`, message: reason })]);
  }
});
