import { DomainError } from '../shared/errors.js';
import { connectionFor, selectableStreamType, streamType, STREAM_TYPES, type StreamType } from './types.js';

// spec 5 rule 5: an event type runs on the account's connection of its source; a seller type
// does not run on a vendor account. What an automation for the type needs of its account.

export interface StreamAccount {
  id: string;
  name: string;
  entity_type: 'seller' | 'vendor';
  /** the connections the account has authorized */
  connected: { selling: boolean; ads: boolean };
  /** the connections in use (not inactive: docs/decisions/062-inactive-connections.md); unsaid, as connected */
  active?: { selling: boolean; ads: boolean };
}

type NamedAccount = Pick<StreamAccount, 'id' | 'name' | 'entity_type'>;

/** `stream_type_not_for_entity` for a seller type on a vendor account, else null. */
function entityRefusal(t: StreamType, account: NamedAccount): DomainError | null {
  if (!t.sellerOnly || account.entity_type !== 'vendor') return null;
  return new DomainError(
    'stream_type_not_for_entity',
    `stream_type: ${t.code} is a seller event type and account ${account.id} (${account.name}) is a vendor account`,
    { argument: 'stream_type' },
  );
}

/** Why the account can't run the type, or null when it can. */
export function streamTypeRefusal(t: StreamType, account: StreamAccount): DomainError | null {
  const named = `account ${account.id} (${account.name})`;
  const entity = entityRefusal(t, account);
  if (entity) return entity;
  const connection = connectionFor(t);
  if (!account.connected[connection])
    return new DomainError(
      'owner_not_connected',
      `stream_type: ${t.code} runs on the ${connection === 'ads' ? 'advertising' : 'selling'} connection, which ${named} has not authorized`,
      { argument: 'stream_type' },
    );
  return null;
}

/** The selectable event type of that code on the account, or the spec's refusal. */
export function automationStreamType(code: string, account: StreamAccount): StreamType {
  const t = selectableStreamType(code);
  if (!t)
    throw new DomainError(
      'unknown_stream_type',
      streamType(code)
        ? `stream_type: ${code} is handled by the service itself; an automation can't handle it`
        : `stream_type: no event type has the code '${code}'; describe_stream_type lists them`,
      { argument: 'stream_type' },
    );
  const refusal = streamTypeRefusal(t, account);
  if (refusal) throw refusal;
  return t;
}

/**
 * A read's event type filter (list_events, list_automations): `unknown_stream_type` unless some
 * event type has the code; a seller type over accounts that are all vendor accounts is
 * `stream_type_not_for_entity`, as describe_stream_type answers. A connection not authorized is
 * no refusal here: what it brought is still there to read.
 */
export function readStreamType(code: string, accounts: readonly NamedAccount[]): StreamType {
  const t = streamType(code);
  if (!t)
    throw new DomainError(
      'unknown_stream_type',
      `stream_type: no event type has the code '${code}'; one of ${STREAM_TYPES.map((s) => s.code).join(', ')}`,
      { argument: 'stream_type' },
    );
  const refusals = accounts.map((a) => entityRefusal(t, a));
  if (refusals.length === 1 && refusals[0]) throw refusals[0];
  if (refusals.length > 1 && refusals.every((r) => r !== null))
    throw new DomainError(
      'stream_type_not_for_entity',
      `stream_type: ${t.code} is a seller event type and your accounts are all vendor accounts`,
      { argument: 'stream_type' },
    );
  return t;
}
