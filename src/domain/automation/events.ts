import { z } from 'zod';
import { instant } from '../shared/instant.js';
import type { EventUnion } from '../shared/decider.js';

// Events of one automation (`automation-<id>`) and of the live slot of one event type on one
// account (`automation_live-<account>.<stream type>`), which makes "one live automation per event
// type" hold under concurrent activations.

const author = z.string().min(1);

/** Qualified operation names mapped to the catalog revision and schema digest they were written against (spec 4.4). */
export const OperationDependencies = z.record(
  z.string(),
  z.strictObject({ catalog_revision: z.string(), schema_digest: z.string() }),
);
export type OperationDependencies = z.infer<typeof OperationDependencies>;

/** The automation itself, as it is created and as a compaction restates it. */
const definition = {
  account_id: z.uuid(),
  stream_type: z.string(),
  title: z.string(),
  code: z.string(),
  operation_dependencies: OperationDependencies,
  /** the automation it was duplicated from, or null */
  source_automation_id: z.uuid().nullable(),
};

export const AutomationCreated = z.object({ automation_id: z.uuid(), ...definition, by: author, at: instant });
/** A new code version (the first one is version 1, in AutomationCreated). */
export const AutomationCodeSaved = z.object({
  version: z.number().int().min(2),
  code: z.string(),
  by: author,
  at: instant,
});
export const AutomationRetitled = z.object({ title: z.string(), by: author, at: instant });
export const AutomationDependenciesSet = z.object({
  operation_dependencies: OperationDependencies,
  by: author,
  at: instant,
});
export const AutomationActivated = z.object({ by: author, at: instant });
export const AutomationDeactivated = z.object({
  /** `replaced`: another automation of the event type went live; `archived`: deactivated before
   * archiving; `stopped`: its user deactivated it (the console's Deactivate) */
  reason: z.enum(['replaced', 'archived', 'stopped']),
  replaced_by: z.uuid().nullable(),
  by: author,
  at: instant,
});
export const AutomationArchived = z.object({ by: author, at: instant });

/** One code version as the automation's history keeps it. */
export const CodeVersion = z.object({ version: z.number().int().min(1), code: z.string(), by: author, at: instant });
export type CodeVersion = z.infer<typeof CodeVersion>;

/**
 * Retention (spec 8: code versions a year from the edit): the automation as it stands, with the
 * versions still kept, so the events before this one can leave the stream (truncated after it is
 * appended). Folding or projecting from here gives what the whole stream gave, minus the versions
 * that expired.
 */
export const AutomationCompacted = z.object({
  ...definition,
  version: z.number().int().min(1),
  created_at: instant,
  created_by: author,
  status: z.enum(['draft', 'live', 'archived']),
  /** whether the event type's live slot named it when compacted (the read model's `live`) */
  live: z.boolean(),
  /** the versions kept, oldest first; the current one always */
  versions: z.array(CodeVersion).min(1),
  /** versions edited before this instant (other than the current one) expired */
  expired_before: instant,
  at: instant,
});

export const automationEventSchemas = {
  AutomationCreated,
  AutomationCodeSaved,
  AutomationRetitled,
  AutomationDependenciesSet,
  AutomationActivated,
  AutomationDeactivated,
  AutomationArchived,
  AutomationCompacted,
} as const;
type Schemas = typeof automationEventSchemas;
export type AutomationEvent = { [K in keyof Schemas]: { type: K; data: z.infer<Schemas[K]> } }[keyof Schemas];

/** The slot now names this automation as the live one (null: none is live). */
export const LiveAutomationChanged = z.object({
  account_id: z.uuid(),
  stream_type: z.string(),
  automation_id: z.uuid().nullable(),
  previous: z.uuid().nullable(),
  at: instant,
});
export const liveSlotEventSchemas = { LiveAutomationChanged } as const;
export type LiveSlotEvent = { type: 'LiveAutomationChanged'; data: z.infer<typeof LiveAutomationChanged> };
/** An event family's schemas and the live slot's, for what folds both (the automations and streams read models). */
export const withLiveSlot = <Schemas extends Record<string, z.ZodType>>(schemas: Schemas) => ({
  ...schemas,
  ...liveSlotEventSchemas,
});

/** The seller paused every automation of the account (pause.ts), or let them run again. */
export const AutomationsPaused = z.object({ account_id: z.uuid(), by: author, at: instant });
export const AutomationsResumed = z.object({ account_id: z.uuid(), by: author, at: instant });
export const pauseEventSchemas = { AutomationsPaused, AutomationsResumed } as const;
export type PauseEvent = EventUnion<typeof pauseEventSchemas>;
