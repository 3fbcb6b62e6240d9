// Spec 8's limits of one automation run: the outbox rules quote them and the runtime enforces them.
export const RUN_LIMITS = {
  runTimeMs: 5_000,
  memoryMb: 64,
  consoleLines: 100,
  consoleLineBytes: 2_000,
  mutationsPerRun: 50,
  mutationPayloadBytesPerRun: 100_000,
  outputBytesPerRun: 500_000,
  codeBytes: 100_000,
  fabricatedEventBytes: 100_000,
  // ours, beyond spec 8: how much of the missing-field record a run keeps
  // (docs/decisions/040-sandbox-run-limits-and-diagnostics.md)
  missingFieldReads: 100,
  missingFieldKeys: 100,
  missingFieldPathChars: 1_000,
} as const;
