/**
 * JSON.stringify recurses and throws RangeError a few thousand levels deep (a chain of 3,000
 * nested suites is enough). `stringifyResponse` tries the fast native path and, only when it
 * overflows, falls back to an encoder that keeps its own stack. Values are plain response data:
 * objects, arrays, strings, finite numbers, booleans, null (undefined members are left out).
 */
export function stringifyResponse(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return stringifyIteratively(value);
  }
}

type Frame = { kind: 'array'; items: unknown[]; i: number } | { kind: 'object'; entries: [string, unknown][]; i: number };

export function stringifyIteratively(root: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  // Writes a scalar or opens a container (pushing its frame); containers are closed by the loop.
  const emit = (v: unknown) => {
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ kind: 'array', items: v, i: 0 });
    } else if (v !== null && typeof v === 'object') {
      out.push('{');
      stack.push({ kind: 'object', entries: Object.entries(v).filter(([, x]) => x !== undefined && typeof x !== 'function'), i: 0 });
    } else {
      out.push(v === undefined ? 'null' : JSON.stringify(v));
    }
  };
  emit(root);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.kind === 'array') {
      if (top.i === top.items.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (top.i > 0) out.push(',');
      emit(top.items[top.i++]);
    } else {
      if (top.i === top.entries.length) {
        out.push('}');
        stack.pop();
        continue;
      }
      const [k, v] = top.entries[top.i++];
      out.push(`${top.i > 1 ? ',' : ''}${JSON.stringify(k)}:`);
      emit(v);
    }
  }
  return out.join('');
}
