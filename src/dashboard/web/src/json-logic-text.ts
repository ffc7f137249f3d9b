/**
 * A JSON Logic rule written the way people read conditions: `{"<": [{"var": "count"}, {"var": "n"}]}` → `count < n`.
 * Only for showing a rule (switch edges on graph drawings); what it cannot spell out stays compact JSON. No library
 * does this: json-logic-js evaluates rules but has no printer.
 */
const INFIX: Record<string, string> = {
  '==': '==', '===': '==', '!=': '!=', '!==': '!=', '<': '<', '<=': '≤', '>': '>', '>=': '≥',
  '+': '+', '-': '−', '*': '×', '/': '/', '%': 'mod', and: 'and', or: 'or', in: 'in', cat: '++',
};
const PRECEDENCE: Record<string, number> = { or: 1, and: 2, '==': 3, '!=': 3, '<': 3, '≤': 3, '>': 3, '≥': 3, in: 3, '++': 4, '+': 4, '−': 4, '×': 5, '/': 5, mod: 5 };

function literal(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? 'null';
}

function text(rule: unknown, parent = 0): string {
  if (rule === null || typeof rule !== 'object') return literal(rule);
  if (Array.isArray(rule)) return `[${rule.map((r) => text(r)).join(', ')}]`;
  const keys = Object.keys(rule);
  if (keys.length !== 1) return JSON.stringify(rule);
  const op = keys[0];
  const raw = (rule as Record<string, unknown>)[op];
  const args = Array.isArray(raw) ? raw : [raw];
  if (op === 'var') {
    const name = args[0];
    // A graph's context paths start at `$.`: the name after it is what a reader looks for.
    return typeof name === 'string' || typeof name === 'number' ? (String(name) === '' ? 'data' : String(name).replace(/^\$\./, '')) : JSON.stringify(rule);
  }
  if (op === '!' && args.length === 1) return `not ${text(args[0], 6)}`;
  if (op === '!!' && args.length === 1) return `${text(args[0], 6)} is set`;
  if (op === 'missing') return `missing ${args.map((a) => text(a)).join(', ')}`;
  // The "between" forms: {"<": [a, b, c]} is a < b < c.
  if ((op === '<' || op === '<=') && args.length === 3) return wrap(`${text(args[0], 4)} ${INFIX[op]} ${text(args[1], 4)} ${INFIX[op]} ${text(args[2], 4)}`, 3, parent);
  if (op === 'if' && args.length >= 3) return wrap(`if ${text(args[0])} then ${text(args[1])} else ${text(args.slice(2).length === 1 ? args[2] : { if: args.slice(2) })}`, 0, parent);
  const infix = INFIX[op];
  if (infix && args.length >= 2) {
    const p = PRECEDENCE[infix] ?? 3;
    return wrap(args.map((a) => text(a, p + 1)).join(` ${infix} `), p, parent);
  }
  if (op === '-' && args.length === 1) return `−${text(args[0], 6)}`;
  return `${op}(${args.map((a) => text(a)).join(', ')})`;
}

function wrap(s: string, own: number, parent: number): string {
  return own < parent ? `(${s})` : s;
}

/** A JSON Logic rule as a readable condition. */
export function jsonLogicText(rule: unknown): string {
  return text(rule);
}
