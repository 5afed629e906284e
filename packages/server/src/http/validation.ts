import type { z } from 'zod';
import type { ValidationReason } from '@testreport/contract';
import { ValidationError } from '../lib/errors.js';

/** `tests[3].steps[0].title`: how a field is named in every 400. */
export function fieldName(path: readonly PropertyKey[], root?: string): string {
  let out = root ?? '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || root || 'body';
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = data;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

function reasonOf(issue: z.core.$ZodIssue, data: unknown): ValidationReason {
  // An absent value is "required" whatever the schema expected there (type, enum member, union).
  const absent = valueAt(data, issue.path) === undefined;
  switch (issue.code) {
    case 'invalid_type':
      return absent ? 'required' : 'invalid_type';
    case 'invalid_value':
    case 'invalid_union':
      return absent ? 'required' : 'invalid_value';
    case 'too_big':
      return issue.origin === 'string' ? 'too_long' : 'out_of_range';
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) <= 1) return 'required';
      return 'out_of_range';
    case 'custom': {
      const r = (issue.params as { reason?: ValidationReason } | undefined)?.reason;
      return r ?? 'invalid_value';
    }
    default:
      return 'invalid_value';
  }
}

/** Parses with a schema or throws a ValidationError naming the first bad field (all issues in details). */
export function parseWith<S extends z.ZodType>(schema: S, data: unknown, root?: string): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({
    field: fieldName(i.path, root),
    reason: reasonOf(i, data),
    message: i.message,
  }));
  const first = issues[0];
  throw new ValidationError(first.field, first.reason, `${first.field}: ${first.message}`, issues.length > 1 ? { issues } : undefined);
}
