import { InvalidArgumentsError } from './errors';

/**
 * The path-safe id of a project name: lowercase letters, digits and `-` (other runs of characters become one `-`,
 * leading/trailing `-` trimmed, at most 100 characters). `My App_v2` → `my-app-v2`.
 * Pure (no I/O), so the domain can derive ids; `infrastructure/files/project-layout.ts` re-exports it.
 * @throws InvalidArgumentsError when nothing usable remains.
 */
export function projectIdFromName(name: string, field = 'projectName'): string {
  if (typeof name !== 'string' || name.includes('\0')) {
    throw new InvalidArgumentsError(`${field}: expected a project name without NUL bytes`, field);
  }
  const id = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/g, '');
  if (!id) throw new InvalidArgumentsError(`${field}: '${name}' has no letters or digits to make a project id from`, field);
  return id;
}
