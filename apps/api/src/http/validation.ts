import type { AppRoute } from '@ts-rest/core';
import type { ZodError, ZodIssue } from 'zod';
import type { RequestValidationError } from '@ts-rest/express';

const fieldName = (issue: ZodIssue): string => issue.path.map(String).join('.');

/** An error names at most this many unknown fields, each cut to `MAX_FIELD_NAME` characters. */
const MAX_NAMED_FIELDS = 5;
const MAX_FIELD_NAME = 64;
/** At most this many problems are listed in `details`. */
export const MAX_DETAILS = 10;

const clip = (name: string): string =>
  name.length > MAX_FIELD_NAME ? `${name.slice(0, MAX_FIELD_NAME)}…` : name;

const article = (noun: string): string => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

const TYPE_NAMES: Record<string, string> = {
  object: 'JSON object',
  array: 'array',
  string: 'string',
  number: 'number',
  integer: 'integer',
  boolean: 'boolean',
};

/** One sentence per issue that names the field, in words rather than zod's JSON. */
export function describeIssue(issue: ZodIssue, location: 'body' | 'query' | 'path'): string {
  const field = fieldName(issue);
  const subject = field || (location === 'body' ? 'request body' : 'request');
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.received === 'undefined') return `${subject} is required`;
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      if (issue.received === 'null') return `${subject} must be ${article(expected)}, not null`;
      return `${subject} must be ${article(expected)}`;
    }
    case 'invalid_enum_value':
      return `${subject} must be one of: ${issue.options.join(', ')}`;
    case 'invalid_union_discriminator':
      return `${subject} must be one of: ${issue.options.map(String).join(', ')}`;
    case 'invalid_literal':
      return `${subject} must be ${JSON.stringify(issue.expected)}`;
    case 'unrecognized_keys': {
      const keys = issue.keys.map((key) => (field ? `${field}.${key}` : key));
      const [first] = keys;
      if (keys.length === 1 && first !== undefined) return `unknown field: ${clip(first)}`;
      const named = keys.slice(0, MAX_NAMED_FIELDS).map(clip).join(', ');
      const more = keys.length - MAX_NAMED_FIELDS;
      return `unknown fields: ${named}${more > 0 ? ` and ${more} more` : ''}`;
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.type === 'string') {
        return min <= 1
          ? `${subject} must not be empty`
          : `${subject} must be at least ${min} characters`;
      }
      if (issue.type === 'array') return `${subject} must have at least ${min} items`;
      return issue.inclusive
        ? `${subject} must be greater than or equal to ${min}`
        : `${subject} must be greater than ${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.type === 'string') return `${subject} must be at most ${max} characters`;
      if (issue.type === 'array') return `${subject} must have at most ${max} items`;
      return issue.inclusive
        ? `${subject} must be less than or equal to ${max}`
        : `${subject} must be less than ${max}`;
    }
    case 'invalid_string':
      if (issue.validation === 'datetime') {
        return `${subject} must be an ISO-8601 timestamp with a time zone, e.g. 2026-06-01T19:00:00Z`;
      }
      // A pattern with a message of its own says what it wants (e.g. text without NUL).
      if (issue.validation === 'regex' && issue.message && issue.message !== 'Invalid') {
        return `${subject} ${issue.message}`;
      }
      return `${subject} has an invalid format`;
    case 'custom':
      // The contract's custom messages name their field, except shared ones that ask for it.
      if (!issue.message || issue.message === 'Invalid input') return `${subject} is invalid`;
      return (issue.params as { prefixField?: boolean } | undefined)?.prefixField
        ? `${subject} ${issue.message}`
        : issue.message;
    default:
      return `${subject} is invalid`;
  }
}

export interface ValidationProblem {
  field: string;
  message: string;
}

export function describeZodError(
  error: ZodError,
  location: 'body' | 'query' | 'path',
): ValidationProblem[] {
  return error.issues.slice(0, MAX_DETAILS).map((issue) => ({
    field: clip(fieldName(issue)),
    message: describeIssue(issue, location),
  }));
}

/** How many single-character edits turn `a` into `b` (Levenshtein). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The known parameter `name` was most likely meant as, if one is close enough to say so. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  if (name.length > MAX_FIELD_NAME) return undefined;
  const lower = name.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate);
    // Two edits in a long name, one in a short one: `staus` → `status`, but not `id` → `q`.
    const allowed = candidate.length > 4 ? 2 : 1;
    if (distance <= allowed && (!best || distance < best.distance)) {
      best = { name: candidate, distance };
    }
  }
  return best?.name;
}

/** One problem per unknown query parameter, each suggesting the known one it resembles. */
function unknownParameters(issue: ZodIssue, known: readonly string[]): ValidationProblem[] {
  if (issue.code !== 'unrecognized_keys') return [];
  return issue.keys.map((key) => {
    const suggestion = closestName(key, known);
    return {
      field: clip(key),
      message: `Unknown query parameter '${clip(key)}'.${suggestion ? ` Did you mean '${suggestion}'?` : ''}`,
    };
  });
}

/** The query parameters a route declares. */
const queryNames = (route: AppRoute | undefined): string[] => {
  const shape = (route?.query as { shape?: Record<string, unknown> } | null | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
};

/**
 * Path parameters first, then the query, then the body: the first problem is the message. An
 * unknown query parameter comes first of the query's: a misspelt filter explains the rest.
 */
export function describeRequestValidationError(
  error: RequestValidationError,
  route?: AppRoute,
): ValidationProblem[] {
  if (error.pathParams) return describeZodError(error.pathParams, 'path');
  if (error.query) {
    const known = queryNames(route);
    const unknown = error.query.issues.flatMap((issue) => unknownParameters(issue, known));
    const others = describeZodError(error.query, 'query').filter(
      (_problem, i) => error.query?.issues[i]?.code !== 'unrecognized_keys',
    );
    return [...unknown, ...others].slice(0, MAX_DETAILS);
  }
  if (error.body) return describeZodError(error.body, 'body');
  if (error.headers) return describeZodError(error.headers, 'query');
  return [{ field: '', message: 'invalid request' }];
}
