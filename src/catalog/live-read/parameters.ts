import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { DomainError } from '../../domain/shared/errors.js';
import type { OperationContract, Schema } from '../operation.js';

// A live read's parameters against the operation's own contract (spec 4.9, 7
// `invalid_parameters`, `scope_mismatch`): each named one must be a query parameter or a
// request body property of the operation and hold a value its native schema accepts. Path and
// header parameters are the service's to set (from the target, or its credentials); the caller
// may repeat a value the target fixes but never change it; the page token travels in the cursor.

export interface ParameterRules {
  /** values the target fixes, by parameter name */
  derived: Record<string, unknown>;
  /** parameters the caller may choose within the target's scope, with the test a value must pass */
  withinScope?: Record<string, { allows(value: unknown): boolean; why: string }>;
  /** values of `withinScope` parameters the caller does not give */
  defaults?: Record<string, unknown>;
  /** the page token's parameter: only ever the cursor's */
  paging?: string;
}

/** A request to send: where each value goes. */
export interface RequestParts {
  path: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
  /** the body's media type, the first the operation declares */
  mediaType: string | null;
}

/** Headers the clients set themselves on every call. */
const CLIENT_HEADERS = new Set(['amazon-advertising-api-clientid', 'authorization', 'x-amz-access-token']);

const invalid = (detail: string, argument = 'parameters') =>
  new DomainError('invalid_parameters', detail, { argument });

/** The body's schema: the first declared media type's. */
function bodyOf(op: OperationContract): { mediaType: string; schema: Schema | null } | null {
  const first = op.request && Object.entries(op.request.content)[0];
  return first ? { mediaType: first[0], schema: first[1] } : null;
}

const schemaCache = new WeakMap<Schema, z.ZodType>();
/** The native schema as a validator; a part the catalog keeps aside (or cannot state) checks nothing. */
export function nativeValidator(schema: Schema | null | undefined): z.ZodType {
  if (!schema || schema.oversized === true) return z.unknown();
  let v = schemaCache.get(schema);
  if (!v) {
    try {
      v = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch {
      v = z.unknown();
    }
    schemaCache.set(schema, v);
  }
  return v;
}

/** Where each of the caller's and the target's parameters goes, or the error that refuses them. */
export function requestParts(
  op: OperationContract,
  given: Record<string, unknown>,
  rules: ParameterRules,
  continuation: string | undefined,
): RequestParts {
  const parts: RequestParts = { path: {}, query: {}, headers: {}, body: null, mediaType: null };
  const body = bodyOf(op);
  const bodyProps = (body?.schema?.properties ?? {}) as Record<string, Schema>;
  const named = new Map(op.parameters.filter((p) => p.in !== 'body').map((p) => [p.name.toLowerCase(), p]));
  const known = [...op.parameters.filter((p) => p.in === 'query').map((p) => p.name), ...Object.keys(bodyProps)];
  const derived = new Map(Object.entries(rules.derived).map(([k, v]) => [k.toLowerCase(), [k, v] as const]));

  const place = (name: string, value: unknown) => {
    const p = named.get(name.toLowerCase());
    if (!p) {
      parts.body ??= {};
      parts.body[name] = value;
    } else if (p.in === 'path') parts.path[p.name] = String(value);
    else if (p.in === 'header') parts.headers[p.name] = String(value);
    else parts.query[p.name] = value;
  };

  for (const [name, value] of Object.entries(given)) {
    const at = `parameters.${name}`;
    const param = named.get(name.toLowerCase());
    if (!param && !(name in bodyProps))
      throw invalid(
        `${at}: '${op.operationId}' has no such parameter; it takes ${known.length ? known.join(', ') : 'none'}`,
        at,
      );
    if (rules.paging && name.toLowerCase() === rules.paging.toLowerCase())
      throw invalid(`${at}: the page token is the service's; follow next_cursor with cursor instead`, at);
    const fixed = derived.get(name.toLowerCase());
    if (fixed) {
      if (!isDeepStrictEqual(value, fixed[1]))
        throw new DomainError(
          'scope_mismatch',
          `${at}: ${JSON.stringify(value)} disagrees with the target's ${JSON.stringify(fixed[1])}; leave it out, the target sets it`,
          { argument: at },
        );
      continue;
    }
    const chosen = rules.withinScope?.[name];
    if (chosen && !chosen.allows(value))
      throw new DomainError('scope_mismatch', `${at}: ${JSON.stringify(value)} ${chosen.why}`, { argument: at });
    if (param && param.in !== 'query' && !chosen)
      throw invalid(`${at}: a ${param.in} parameter, which the service sets from the target; leave it out`, at);
    const checked = nativeValidator(param ? param.schema : bodyProps[name]).safeParse(value);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      const where = issue.path.length ? `${at}.${issue.path.join('.')}` : at;
      throw invalid(`${where}: ${issue.message} (its native schema in get_amazon_operation)`, at);
    }
    place(name, value);
  }
  for (const [, [name, value]] of derived) if (value !== undefined) place(name, value);
  for (const [name, value] of Object.entries(rules.defaults ?? {}))
    if (value !== undefined && !(name in given)) place(name, value);
  if (continuation !== undefined && rules.paging) place(rules.paging, continuation);

  const missing = [
    ...op.parameters
      .filter((p) => p.in !== 'body' && p.required && !CLIENT_HEADERS.has(p.name.toLowerCase()))
      .filter((p) => !(p.name in parts.path || p.name in parts.query || p.name in parts.headers))
      .map((p) => p.name),
    ...((body?.schema?.required ?? []) as string[]).filter((n) => !(parts.body && n in parts.body)),
  ];
  if (missing.length) throw invalid(`parameters: '${op.operationId}' requires ${missing.join(', ')}`);
  if (body && (parts.body || op.request?.required)) {
    parts.body ??= {};
    parts.mediaType = body.mediaType;
  }
  return parts;
}
