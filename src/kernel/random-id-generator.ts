import { randomUUID } from 'node:crypto';
import type { IdGenerator } from './id-generator';

/** Random UUID v4 ids for knowledge nodes added without one. */
export class RandomIdGenerator implements IdGenerator {
  next(): string {
    return randomUUID();
  }
}
