import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { DomainError, ERROR_CODES } from '../domain/shared/errors.js';
import { firstIssue } from '../domain/shared/issues.js';

// The one error layer of the MCP surface: every failure a caller can see is an `isError` result
// whose text is the JSON `{ code, detail, ...extra }`. Errors carry no structured content: a
// tool's outputSchema describes its answer, and clients (the 1.x SDK's among them) check any
// structured content against it, an error's too, and then refuse the result whole.

/** A tool's answer: its structured content, and the same as JSON text for clients that read only text. */
export function jsonResult(body: Record<string, unknown>): CallToolResult {
  return { structuredContent: body, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/**
 * What every tool's error result carries (spec 7), whatever the tool: one schema, documented
 * once in docs/tools.md. Some codes add fields of their own beside these (e.g. `accounts`).
 */
export const toolErrorSchema = z.looseObject({
  code: z.enum(ERROR_CODES).describe("the spec's error code"),
  detail: z.string().describe('which value was refused and why, or what went wrong'),
  argument: z.string().optional().describe('the argument the error is about, as a path (`mutations[0].target`)'),
  arguments: z.array(z.string()).optional().describe('unknown_argument: every argument the tool does not take'),
  message: z.string().optional().describe("execution_error: the JavaScript error's message"),
  reason: z.string().optional().describe('why an operation is unavailable'),
  retry_after_seconds: z.number().int().optional().describe('rate_limited, throttled, busy: when to try again'),
  current_revision: z.string().optional().describe('stale_revision, schema_changed: the revision to use'),
});

export function errorResult(err: DomainError): CallToolResult {
  const body: z.input<typeof toolErrorSchema> = { code: err.code, detail: err.detail, ...err.extra };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** what a caller sees for anything we did not expect; the cause goes to the log only */
export const unexpectedError = (): DomainError =>
  new DomainError('unavailable', 'the service could not complete this call; retry later');

/** `a.b[0].c`: how details name an argument's path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out;
}

/**
 * Tool input failures: an extra key is `unknown_argument`; a required argument left out is the
 * tool's own code for it when the spec gives one (`missing`); anything else `invalid`.
 */
export function inputError(
  error: z.ZodError,
  args: unknown,
  missing: Readonly<Record<string, (() => DomainError) | undefined>> = {},
): DomainError {
  const unknownKeys = error.issues.flatMap((i) =>
    i.code === 'unrecognized_keys' ? i.keys.map((k) => formatPath([...i.path, k])) : [],
  );
  if (unknownKeys.length > 0) {
    return new DomainError(
      'unknown_argument',
      `this tool does not take the argument${unknownKeys.length > 1 ? 's' : ''} ${unknownKeys.map((k) => `'${k}'`).join(', ')}`,
      {
        arguments: unknownKeys,
      },
    );
  }
  // no arguments at all read as {}, as the tool parses them; an array or a string is just `invalid`
  const given: unknown = args ?? {};
  if (typeof given === 'object' && !Array.isArray(given))
    for (const [name, answer] of Object.entries(missing))
      if (answer && (given as Record<string, unknown>)[name] === undefined) return answer();
  const issue = firstIssue(error.issues);
  const argument = formatPath(issue.path) || '(arguments)';
  return new DomainError('invalid', `${argument}: ${issue.message}`, { argument });
}

/** A NUL character, or half of a surrogate pair without the other half. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what PostgreSQL text cannot store
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The path of the first string (value or key) PostgreSQL text and jsonb cannot store (a NUL
 * character, a lone surrogate): such input is refused whole before anything is recorded.
 */
export function unstorableTextAt(value: unknown, path: PropertyKey[] = []): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? formatPath(path) || '(arguments)' : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [k, v] of Object.entries(value)) {
    const key = Array.isArray(value) ? Number(k) : k;
    if (UNSTORABLE.test(k)) return formatPath([...path, key]);
    const found = unstorableTextAt(v, [...path, key]);
    if (found) return found;
  }
  return null;
}
