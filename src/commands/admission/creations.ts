import type { Knex } from 'knex';
import { creationGuardDecider, creationStreamId, type RequestCreation } from '../../domain/admission/creation-guard.js';
import type { Status } from '../../domain/mutation/events.js';
import { isCreation } from '../../domain/mutation/payloads.js';
import { DomainError } from '../../domain/shared/errors.js';
import { pendingIdentical } from '../../projections/admission/queries.js';
import type { LockScope } from './locks.js';
import type { Admit } from './receipts.js';
import type { Prepared } from './target.js';
import { handleCommandWith, streamName, type CommandContext } from '../shared/handler.js';
import { readReceipt } from '../mutation/execute.js';

// An identical creation is refused while one on the same parent is pending (spec 3.4), or when
// it comes earlier in the same call. Each creation is requested on its guard's stream under the
// guard's lock, so two calls can't both pass the check.

/** Where admission records, and the locks it holds; null when it only simulates (nothing read from the store). */
export type Recording = { ctx: CommandContext; lock: LockScope['lock'] } | null;

/** The requests with each identical creation replaced by its refusal; records the others on their guards. */
export async function guardCreations({
  reads,
  recording,
  prepared,
  at,
}: {
  reads: Knex;
  recording: Recording;
  prepared: readonly Prepared[];
  at: string;
}): Promise<Prepared[]> {
  const creations = prepared.flatMap((p, index) =>
    'command' in p && isCreation(p.command.action)
      ? [
          {
            index,
            command: p.command,
            guard: creationStreamId(p.command.account_id, p.command.target, p.command.action, p.command.payload),
          },
        ]
      : [],
  );
  if (recording) await recording.lock(creations.map((c) => streamName(creationGuardDecider.aggregate, c.guard)));
  const guarded = [...prepared];
  const claimedHere = new Set<string>();
  for (const { index, command, guard } of creations) {
    const argument = `mutations[${index}]`;
    if (claimedHere.has(guard)) {
      const detail = `${argument}: an identical ${command.action} on this ${command.target.type} comes earlier in this call`;
      guarded[index] = { error: new DomainError('invalid', detail, { argument }) };
      continue;
    }
    try {
      await requestCreation({ reads, recording, guard, command, at });
      claimedHere.add(guard);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      guarded[index] = { error: new DomainError(err.code, `${argument}: ${err.detail}`, { argument, ...err.extra }) };
    }
  }
  return guarded;
}

/** Decides the creation on its guard: the pending status comes from the last receipt's own stream. */
async function requestCreation({
  reads,
  recording,
  guard,
  command,
  at,
}: {
  reads: Knex;
  recording: Recording;
  guard: string;
  command: Admit;
  at: string;
}): Promise<void> {
  const request = (last_status: Status | null): RequestCreation => ({
    type: 'RequestCreation',
    receipt_id: command.receipt_id,
    action: command.action,
    target_type: command.target.type,
    at,
    last_status,
  });
  if (recording) {
    const { store } = recording.ctx;
    // an empty receipt stream: its admission never completed (under the lock nothing is in flight)
    await handleCommandWith(
      creationGuardDecider,
      guard,
      async ({ last }) => request(last === null ? null : ((await readReceipt(store, last))?.state.status ?? null)),
      recording.ctx,
    );
    return;
  }
  // simulation reads no event store: the receipts read model stands in for the guard's stream
  const pending = await pendingIdentical(reads, command.account_id, command.target, command.action, command.payload);
  creationGuardDecider.decide(request(pending?.status ?? null), { last: pending?.receipt_id ?? null });
}
