import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageRoot } from '../../../kernel/config/package-root';
import type { ContractSchemaSource } from '../application/ports/contract-schemas';
import { contractSchemaFiles } from '../domain/current-format/contracts';

/** spec/contracts/, located from the package root (found from src/ in tests and dist/ when built). */
export function contractSchemaDir(): string {
  return path.join(packageRoot(), 'spec', 'contracts');
}

/** The contract schemas read from spec/contracts/ on first use of each, then kept. */
export class ContractSchemaFiles implements ContractSchemaSource {
  private readonly files = contractSchemaFiles();
  private readonly cache = new Map<string, Record<string, unknown>>();

  schema(id: string): Record<string, unknown> | undefined {
    const file = this.files[id];
    if (!file) return undefined;
    let schema = this.cache.get(id);
    if (!schema) {
      schema = JSON.parse(fs.readFileSync(path.join(contractSchemaDir(), file), 'utf8')) as Record<string, unknown>;
      this.cache.set(id, schema);
    }
    return schema;
  }

  ids(): string[] {
    return Object.keys(this.files);
  }
}
