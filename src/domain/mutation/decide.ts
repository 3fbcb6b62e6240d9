import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import {
  mutationEventSchemas,
  type Candidate,
  type ReceiptCause,
  type Via,
  type Created,
  type Idempotency,
  type MutationEvent,
  type MutationEventOf,
  type ReceiptError,
  type Reconciliation,
  type Status,
} from './events.js';
import { CREATED_TYPE, isCreation, payloadSchema, type Action, type TargetType } from './payloads.js';
import { evolve, initialState, type ReceiptState } from './state.js';
import { firstIssue } from '../shared/issues.js';

/** An uncertain request whose effect is not seen this long after it became uncertain is settled as absent (spec 8). */
export const ABSENT_AFTER_MS = 10 * 60_000;

interface ProviderAnswer {
  http_status: number | null;
  response: unknown;
  request_id: string | null;
  error: ReceiptError | null;
  recorded_at: string;
}

export type MutationCommand =
  | {
      type: 'AdmitMutation';
      receipt_id: string;
      account_id: string;
      target: { type: TargetType; id: string };
      provider: Record<string, string>;
      action: Action;
      payload: Record<string, unknown>;
      idempotency: Idempotency | null;
      created_at: string;
      blocked: { reason: 'listing_blocked' | 'automation_switch_off'; message: string } | null;
      /** the automation run that admits it, or the receipt it reverts (absent otherwise) */
      caused_by?: ReceiptCause | null;
      /** the client or token of the tool call that admits it */
      via?: Via;
      /** the qualified catalog operation key it was queued as */
      operation?: string;
    }
  /** `prior`, `sent_with`: see MutationDispatchStarted */
  | { type: 'StartDispatch'; receipt_id: string; started_at: string; prior?: unknown; sent_with?: string[] }
  | ({
      type: 'RecordSubmission';
      receipt_id: string;
      submission_id: string | null;
      accepted: boolean;
      created: Created | null;
    } & ProviderAnswer)
  | ({ type: 'RecordRetryableRejection'; receipt_id: string } & ProviderAnswer)
  | {
      type: 'BlockMutation';
      receipt_id: string;
      reason: 'listing_blocked' | 'automation_switch_off';
      message: string;
      recorded_at: string;
    }
  | ({ type: 'RecordUncertain'; receipt_id: string; cause: 'reply_lost' | 'partial' | 'ambiguous' } & ProviderAnswer)
  /** `checks`: how many checks the receipt had when this one began (a concurrent check makes it stale) */
  | {
      type: 'ReconcileCreation';
      receipt_id: string;
      checks: number;
      candidates: Created[];
      checked_at: string;
      next_at?: string;
    }
  /**
   * a verification read of an uncertain non-creation's target: `shows` = every requested value is
   * there; `unchanged` = it still shows what it showed before the request, or it no longer exists
   * (positive evidence the change did not happen)
   */
  | {
      type: 'ReconcileChange';
      receipt_id: string;
      checks: number;
      shows: boolean;
      unchanged: boolean;
      observed: unknown;
      checked_at: string;
      next_at?: string;
    }
  | { type: 'RecordTargetDeleted'; receipt_id: string; recorded_at: string };

export type MutationCommandType = MutationCommand['type'];

/** The states (null = not admitted) from which each command is legal: spec 3.4. */
export const LEGAL_FROM: Record<MutationCommandType, readonly (Status | null)[]> = {
  AdmitMutation: [null],
  StartDispatch: ['queued'],
  RecordSubmission: ['submitting'],
  RecordRetryableRejection: ['submitting'],
  BlockMutation: ['queued'],
  RecordUncertain: ['queued', 'submitting'],
  ReconcileCreation: ['uncertain'],
  ReconcileChange: ['uncertain'],
  RecordTargetDeleted: ['queued', 'submitting', 'uncertain'],
};

const refuse = (
  command: MutationCommand,
  state: ReceiptState,
  why?: string,
  extra: Record<string, unknown> = {},
): never => {
  const from = state.status ?? 'not admitted';
  const legal = LEGAL_FROM[command.type].map((s) => s ?? 'not admitted').join(' or ');
  throw new DomainError(
    'invalid',
    `receipt ${command.receipt_id} is ${from}: ${command.type} ${why ?? `is allowed only when ${legal}`}`,
    {
      receipt_id: command.receipt_id,
      status: state.status,
      command: command.type,
      ...extra,
    },
  );
};

export function decide(command: MutationCommand, state: ReceiptState): MutationEvent[] {
  if (!LEGAL_FROM[command.type].includes(state.status)) refuse(command, state, undefined, { illegal_transition: true });
  const receipt_id = command.receipt_id;
  switch (command.type) {
    case 'AdmitMutation':
      return [admit(command)];
    case 'StartDispatch':
      return [
        {
          type: 'MutationDispatchStarted',
          data: {
            receipt_id,
            attempt: state.attempts + 1,
            started_at: command.started_at,
            ...('prior' in command ? { prior: command.prior } : {}),
            ...(command.sent_with ? { sent_with: command.sent_with } : {}),
          },
        },
      ];
    case 'RecordSubmission': {
      const { type: _, submission_id, accepted, created, ...answer } = command;
      if (created) checkCreated(command, state, [created], accepted ? null : 'a rejected submission created nothing');
      return [
        { type: 'MutationSubmitted', data: { ...answer, attempt: state.attempts, submission_id, accepted, created } },
      ];
    }
    case 'RecordRetryableRejection': {
      const { type: _, ...answer } = command;
      return [{ type: 'MutationRetryScheduled', data: { ...answer, receipt_id, attempt: state.attempts } }];
    }
    case 'BlockMutation':
      return [
        {
          type: 'MutationBlocked',
          data: { receipt_id, reason: command.reason, message: command.message, recorded_at: command.recorded_at },
        },
      ];
    case 'RecordUncertain': {
      const { type: _, ...answer } = command;
      return [
        {
          type: 'MutationUncertain',
          data: { ...answer, receipt_id, attempt: state.status === 'submitting' ? state.attempts : null },
        },
      ];
    }
    case 'ReconcileCreation':
      return [reconcile(command, state)];
    case 'ReconcileChange':
      return [verify(command, state)];
    case 'RecordTargetDeleted':
      if (state.status === 'queued') {
        return [
          {
            type: 'MutationBlocked',
            data: {
              receipt_id,
              reason: 'target_deleted',
              message: 'the marketplace deleted the target before this request was sent',
              recorded_at: command.recorded_at,
            },
          },
        ];
      }
      // a submission already under way stays as it is until its answer or reconciliation resolves it
      return state.target_deleted
        ? []
        : [{ type: 'MutationTargetDeleted', data: { receipt_id, recorded_at: command.recorded_at } }];
  }
}

function admit(command: Extract<MutationCommand, { type: 'AdmitMutation' }>): MutationEventOf<'MutationAdmitted'> {
  const schema = payloadSchema(command.target.type, command.action);
  if (!schema)
    throw new DomainError('invalid', `action ${command.action} does not apply to a ${command.target.type} target`, {
      argument: 'action',
    });
  const parsed = schema.safeParse(command.payload);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error.issues);
    throw new DomainError(
      'invalid',
      `payload${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}`,
      { argument: 'payload' },
    );
  }
  checkDerived(command.payload, command.provider);
  const { type: _, ...data } = command;
  return { type: 'MutationAdmitted', data };
}

// Provider ids in the payload are derived from the target: one that disagrees is refused (spec 4.8).
const DERIVED_IDS = ['campaignId', 'adGroupId', 'adId', 'targetId'] as const;

function checkDerived(payload: Record<string, unknown>, provider: Record<string, string>): void {
  for (const key of DERIVED_IDS) {
    const given = payload[key];
    if (given !== undefined && provider[key] !== undefined && given !== provider[key]) {
      throw new DomainError(
        'scope_mismatch',
        `payload.${key}: '${String(given)}' disagrees with the target's ${key} '${provider[key]}'; omit it, it is derived`,
        { argument: 'payload' },
      );
    }
  }
  const countries = payload.countries as string[] | undefined;
  if (countries && provider.countryCode !== undefined && countries.some((c) => c !== provider.countryCode)) {
    throw new DomainError(
      'scope_mismatch',
      `payload.countries: ${countries.join(', ')} must name only the profile's country ${provider.countryCode}`,
      { argument: 'payload' },
    );
  }
}

function checkCreated(command: MutationCommand, state: ReceiptState, created: Created[], refusal: string | null): void {
  const action = state.action!;
  if (!isCreation(action)) refuse(command, state, `cannot report a created entity: ${action} creates nothing`);
  if (refusal) refuse(command, state, `cannot report a created entity: ${refusal}`);
  const expected = CREATED_TYPE[action as keyof typeof CREATED_TYPE];
  const wrong = created.find((c) => c.type !== expected);
  if (wrong) refuse(command, state, `reports a created ${wrong.type}; ${action} creates entities of type ${expected}`);
}

/** The reconciliation record of a check: counted, and due again by the 10-minute mark at the latest. */
function checked(
  command: Extract<MutationCommand, { type: 'ReconcileCreation' | 'ReconcileChange' }>,
  state: ReceiptState,
  candidates: Candidate[],
) {
  const attempts = state.reconciliation?.attempts ?? 0;
  if (command.checks !== attempts)
    refuse(command, state, `is stale: it began after ${command.checks} checks and the receipt has had ${attempts}`, {
      stale: true,
    });
  const base = { attempts: attempts + 1, checkedAt: command.checked_at, candidates };
  const deadline = Date.parse(state.uncertain_since!) + ABSENT_AFTER_MS;
  const settled = (result: Reconciliation['result'], cause: string): Reconciliation => ({
    ...base,
    result,
    nextAt: null,
    cause,
  });
  return {
    settled,
    /** the 10 minutes are up */
    due: Date.parse(command.checked_at) >= deadline,
    /** none seen yet: absent once the 10 minutes are up, else pending until `next_at` */
    unseen(absentCause: string, pendingCause: string): Reconciliation {
      if (Date.parse(command.checked_at) >= deadline) return settled('absent', absentCause);
      return {
        ...base,
        result: 'pending',
        nextAt: command.next_at ?? new Date(deadline).toISOString(),
        cause: pendingCause,
      };
    },
  };
}

/** Settled unresolved (final): the candidates the check found stay on the receipt. */
const unresolved = (receipt_id: string, check: ReturnType<typeof checked>, cause: string): MutationEvent => ({
  type: 'MutationUnresolved',
  data: { receipt_id, reconciliation: check.settled('unresolved', cause) },
});

function reconcile(
  command: Extract<MutationCommand, { type: 'ReconcileCreation' }>,
  state: ReceiptState,
): MutationEvent {
  const { receipt_id, candidates } = command;
  if (!isCreation(state.action!))
    refuse(command, state, `applies to creations only; ${state.action} is not one (use ReconcileChange)`);
  if (candidates.length) checkCreated(command, state, candidates, null);
  const check = checked(command, state, candidates);
  if (candidates.length === 1) {
    return {
      type: 'MutationCreationConfirmed',
      data: {
        receipt_id,
        created: candidates[0]!,
        reconciliation: check.settled('accepted', 'exactly one matching entity appeared after the attempt'),
      },
    };
  }
  if (candidates.length > 1)
    return unresolved(
      receipt_id,
      check,
      `${candidates.length} entities appeared after the attempt that could each be this creation`,
    );
  const reconciliation = check.unseen(
    'no matching entity appeared within 10 minutes of the attempt',
    'no matching entity has appeared yet',
  );
  return reconciliation.result === 'absent'
    ? { type: 'MutationCreationAbsent', data: { receipt_id, reconciliation } }
    : { type: 'MutationReconciliationChecked', data: { receipt_id, reconciliation } };
}

/**
 * An uncertain update, archive or listing patch (spec 3.4 "other transitions: not shown"): the
 * target read back shows every requested value, so the change is in effect: settled accepted.
 * Settled absent (which releases the requests held behind it; request again if still wanted)
 * only on positive evidence: 10 minutes after it became uncertain the target still shows what
 * it showed before the request, or no longer exists. A target that shows neither (the
 * marketplace may have applied the change and stored its own form of a value) stays in doubt and
 * ends `unresolved`, final, with the values it shows as the candidate.
 */
function verify(command: Extract<MutationCommand, { type: 'ReconcileChange' }>, state: ReceiptState): MutationEvent {
  const { receipt_id, observed } = command;
  if (isCreation(state.action!))
    refuse(
      command,
      state,
      `applies to updates, archives and listing patches only; ${state.action} is a creation (use ReconcileCreation)`,
    );
  if (command.shows) {
    return {
      type: 'MutationChangeConfirmed',
      data: {
        receipt_id,
        observed,
        reconciliation: checked(command, state, []).settled(
          'accepted',
          'the target read back shows every requested value',
        ),
      },
    };
  }
  if (command.unchanged) {
    const reconciliation = checked(command, state, []).unseen(
      'the target still showed what it showed before the request 10 minutes after the attempt',
      'the target still shows what it showed before the request',
    );
    return reconciliation.result === 'absent'
      ? { type: 'MutationChangeAbsent', data: { receipt_id, observed, reconciliation } }
      : { type: 'MutationReconciliationChecked', data: { receipt_id, observed, reconciliation } };
  }
  const check = checked(command, state, [{ observed }]);
  if (check.due)
    return unresolved(
      receipt_id,
      check,
      'the target shows neither the requested values nor what it showed before the request (the marketplace may have stored its own form of them); the values it shows are the candidate',
    );
  return {
    type: 'MutationReconciliationChecked',
    data: {
      receipt_id,
      observed,
      reconciliation: check.unseen('', 'the target shows neither the requested values nor what it showed before'),
    },
  };
}

export const mutationDecider: Decider<MutationCommand, ReceiptState, MutationEvent> = {
  aggregate: 'mutation',
  schemas: mutationEventSchemas,
  initialState,
  evolve,
  decide,
};
