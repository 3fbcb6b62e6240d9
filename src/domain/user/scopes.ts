// The scopes of the /mcp resource, which OAuth access tokens and personal access tokens carry (docs/decisions/100-scopes.md): reading needs `mcp:read`, a
// write tool (spec 4.1's kind) needs `mcp:write` too. A personal access token issued before
// scopes existed holds both.

export const READ_SCOPE = 'mcp:read';
export const WRITE_SCOPE = 'mcp:write';
export const SCOPES = [READ_SCOPE, WRITE_SCOPE] as const;
export type Scope = (typeof SCOPES)[number];

/** What a personal access token's `--scope` names, as scopes: `write` includes reading. */
export const PAT_SCOPES = { read: [READ_SCOPE], write: [READ_SCOPE, WRITE_SCOPE] } as const satisfies Record<
  string,
  readonly Scope[]
>;

/** The scopes a tool of this kind needs, all of them. */
export const scopesFor = (kind: 'read' | 'write'): readonly Scope[] =>
  kind === 'write' ? PAT_SCOPES.write : [READ_SCOPE];

/** The scopes of `needed` that `held` lacks. */
export const missingScopes = (held: readonly string[], needed: readonly Scope[]): Scope[] =>
  needed.filter((scope) => !held.includes(scope));

/** Only the scopes this resource knows, in order (an OAuth grant may carry others). */
export const knownScopes = (granted: Iterable<string>): Scope[] => {
  const set = new Set(granted);
  return SCOPES.filter((scope) => set.has(scope));
};
