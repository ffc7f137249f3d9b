/** Makes new unique ids (knowledge nodes added without one). */
export interface IdGenerator {
  next(): string;
}
