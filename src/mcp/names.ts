import { createHash } from 'node:crypto';

/**
 * A tool name of ours: at most 48 characters, so that a host's prefix (`mcp__school__`, 13
 * characters, or a longer server name) still leaves the whole name within the 64 characters model
 * APIs accept.
 */
const MAX_TOOL_NAME = 48;
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,48}$/;
const MAX = MAX_TOOL_NAME;

/** The tools of our own, whose names no operation may take. */
const RESERVED_TOOLS = ['school_call', 'school_whoami', 'school_operations'] as const;

/** An operationId as a tool name, whole: other characters become `_`, runs of `_` shrink. */
function sanitizeName(raw: string): string {
  return raw
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '');
}

/**
 * A name within `max` characters, cut where a word ends (before a `_` or `-`, or where a lower-case
 * letter or digit meets a capital), so what is left reads as words; mid-word only when no word
 * ends in the second half.
 */
function cutAtWord(name: string, max: number): string {
  if (name.length <= max) return name;
  let cut = -1;
  for (let i = max; i > max / 2; i--) {
    const next = name[i];
    if (next === '_' || next === '-' || (/[A-Z]/.test(next) && /[a-z0-9]/.test(name[i - 1]))) {
      cut = i;
      break;
    }
  }
  return name.slice(0, cut < 0 ? max : cut).replace(/[_-]+$/, '');
}

/** A name made from the method and the path, for an operation without a usable operationId. */
function nameFromRoute(method: string, path: string): string {
  return sanitizeName(`${method.toLowerCase()}_${path.replace(/[{}]/g, '')}`) || method.toLowerCase();
}

/** The operation's whole name, before any cut: what a tool's title shows when its name had to be shortened. */
export function wholeToolName(op: { method: string; path: string; operationId?: string }): string {
  return (op.operationId ? sanitizeName(op.operationId) : '') || nameFromRoute(op.method, op.path);
}

/** A short, stable tag of an operation: the same method and path give the same tag on every run. */
function routeTag(method: string, path: string, salt = 0): string {
  return createHash('sha256')
    .update(`${method} ${path}${salt ? `#${salt}` : ''}`)
    .digest('hex')
    .slice(0, 8);
}

function withTag(base: string, tag: string): string {
  return `${cutAtWord(base, MAX - tag.length - 1)}_${tag}`;
}

/**
 * One valid, unique name per operation: its whole name, cut at a word within 48 characters. A name
 * that two operations (or one of our own tools) would share, whole or once cut, gets a tag made from each one's method and path, not from its position, so
 * adding an operation elsewhere in the document never renames another.
 */
export function assignNames(ops: ReadonlyArray<{ method: string; path: string; operationId?: string }>): string[] {
  const wanted = ops.map((op) => cutAtWord(wholeToolName(op), MAX));
  const counts = new Map<string, number>();
  for (const name of wanted) counts.set(name.toLowerCase(), (counts.get(name.toLowerCase()) ?? 0) + 1);
  const reserved = new Set<string>(RESERVED_TOOLS);
  const taken = new Set<string>([...reserved]);
  const names: string[] = [];
  // Names nobody else wants first, so a tagged name can never take one of them.
  const plain = wanted.map((name) => counts.get(name.toLowerCase()) === 1 && !reserved.has(name.toLowerCase()));
  for (let i = 0; i < ops.length; i++) if (plain[i]) taken.add(wanted[i].toLowerCase());
  for (let i = 0; i < ops.length; i++) {
    if (plain[i]) {
      names.push(wanted[i]);
      continue;
    }
    const op = ops[i];
    let name = withTag(wanted[i], routeTag(op.method, op.path));
    for (let salt = 1; taken.has(name.toLowerCase()); salt++) name = withTag(wanted[i], routeTag(op.method, op.path, salt));
    taken.add(name.toLowerCase());
    names.push(name);
  }
  return names;
}
