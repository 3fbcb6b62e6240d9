// The sandbox's contract with its callers (dry runs, the live runner) and with its runner
// processes. Everything here crosses a process boundary, so it is plain JSON-shaped data.

export interface RunInput {
  /** the automation's source; over RUN_LIMITS.codeBytes UTF-8 bytes is `code_too_large` */
  code: string;
  /** the JSON payload; serialized over RUN_LIMITS.fabricatedEventBytes is `event_too_large` */
  event: unknown;
  /** the context's data (listing, campaign, …) without mutations, webhooks or store: the sandbox adds those */
  context: Record<string, unknown>;
  /** names of the account's enabled webhooks: `context.webhooks.<name>.post(payload)` */
  webhooks: readonly string[];
  /** the automation's store values when the run starts (a dry run passes {}) */
  store: Readonly<Record<string, unknown>>;
}

export type LogLevel = 'log' | 'info' | 'warn' | 'error';
export interface LogLine {
  level: LogLevel;
  message: string;
}

/** A key `handle` read from `event` that the payload lacked, and the keys present at that level. */
export interface MissingFieldRead {
  path: string;
  available: string[];
}

export interface WebhookPost {
  webhook: string;
  payload: unknown;
}

export type StoreEffect = { op: 'set'; key: string; value: unknown } | { op: 'delete'; key: string };

export type RunErrorCode = 'execution_error' | 'code_too_large' | 'event_too_large';

export type RunOutput =
  | {
      ok: true;
      logs: LogLine[];
      mutations: unknown[];
      webhookPosts: WebhookPost[];
      storeEffects: StoreEffect[];
      missingFieldReads: MissingFieldRead[];
      durationMs: number;
    }
  | {
      ok: false;
      error: { code: RunErrorCode; message: string };
      logs: LogLine[];
      missingFieldReads: MissingFieldRead[];
      durationMs: number;
    };

export interface Sandbox {
  run(input: RunInput): Promise<RunOutput>;
  /** the runner processes, for health checks and operators */
  runners(): { pid: number | undefined; busy: boolean }[];
  /** lets the runs in flight finish, then ends the runner processes */
  close(): Promise<void>;
}

/** Store size limits, decided by the store's owner; the sandbox enforces them when given. */
export interface StoreLimits {
  /** serialized bytes of one value */
  valueBytes: number;
  /** serialized bytes of every key and value the automation holds after the run */
  totalBytes: number;
}

export interface SandboxOptions {
  /** runner processes in the pool; each runs one isolate at a time */
  runners?: number;
  /** wall-clock deadline of a run, covering async work (default RUN_LIMITS.runTimeMs) */
  deadlineMs?: number;
  /** isolate heap limit (default RUN_LIMITS.memoryMb) */
  memoryMb?: number;
  storeLimits?: StoreLimits;
}

/** What a runner process is given for one run: the input already serialized by the caller. */
export interface RunJob {
  code: string;
  eventJson: string;
  contextJson: string;
  storeJson: string;
  webhooks: string[];
  deadlineMs: number;
  memoryMb: number;
  storeLimits?: StoreLimits;
}
