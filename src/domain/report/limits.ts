// Spec 8's report limits.
export const REPORT_LIMITS = {
  /** admitted and not yet finalized, per automation (and per caller for requests made over MCP) */
  outstanding: 10,
  /** a completion run's request is one deeper than the report that ran it; past this it is refused */
  depth: 5,
  /** the Report context, serialized */
  contextBytes: 500_000,
  /** rows per collection of the Report context */
  collectionRows: 50,
  /** how long a stored artifact is kept (ours: the provider's documents expire too) */
  artifactTtlMs: 7 * 86_400_000,
} as const;
