import type { core } from 'zod';

type Issue = core.$ZodIssue;

/** Issues saying the value is not this shape at all: a key it doesn't have, or one of its own keys missing or of another type. */
const misfits = (option: readonly Issue[]) =>
  option.filter(
    (i) => (i.code === 'unrecognized_keys' && i.path.length === 0) || (i.code === 'invalid_type' && i.path.length <= 1),
  ).length;

/**
 * The issue a `detail` names: the first, except that for a value matching none of a union's
 * shapes it is the issue of the shape the value came nearest (fewest misfits, then fewest issues,
 * then the deepest), with its path under the union's, so the detail says why instead of zod's
 * "Invalid input".
 */
export function firstIssue(issues: readonly Issue[]): { path: PropertyKey[]; message: string } {
  const issue = issues[0]!;
  if (issue.code !== 'invalid_union') return { path: issue.path, message: issue.message };
  const depth = (option: readonly Issue[]) => option[0]?.path.length ?? 0;
  const nearest = [...issue.errors]
    .filter((option) => option.length > 0)
    .sort((a, b) => misfits(a) - misfits(b) || a.length - b.length || depth(b) - depth(a))[0];
  if (!nearest) return { path: issue.path, message: issue.message };
  const inner = firstIssue(nearest);
  return { path: [...issue.path, ...inner.path], message: inner.message };
}
