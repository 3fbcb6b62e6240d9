import type { core } from 'zod';

type Issue = core.$ZodIssue;

/**
 * The issue a `detail` names: the first, except that for a value matching none of a union's
 * shapes it is the issue of the shape the value came nearest (fewest issues, then the deepest),
 * with its path under the union's, so the detail says why instead of zod's "Invalid input".
 */
export function firstIssue(issues: readonly Issue[]): { path: PropertyKey[]; message: string } {
  const issue = issues[0]!;
  if (issue.code !== 'invalid_union') return { path: issue.path, message: issue.message };
  const depth = (option: readonly Issue[]) => option[0]?.path.length ?? 0;
  const nearest = [...issue.errors]
    .filter((option) => option.length > 0)
    .sort((a, b) => a.length - b.length || depth(b) - depth(a))[0];
  if (!nearest) return { path: issue.path, message: issue.message };
  const inner = firstIssue(nearest);
  return { path: [...issue.path, ...inner.path], message: inner.message };
}
