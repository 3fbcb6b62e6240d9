import type { Created, ReceiptError } from '../../domain/mutation/events.js';
import { CREATED_TYPE, isCreation, type Action } from '../../domain/mutation/payloads.js';
import { MarketplaceError, type AdsClient, type SellingClient } from '../../marketplace/clients/index.js';
import type { HttpAnswer } from '../../marketplace/clients/http.js';
import type { SpMutationError } from '../../marketplace/clients/ads-sp-types.js';
import type { MarketplaceRequest } from './requests.js';
import { adsEntityId } from '../../domain/observation/ids.js';

// Sends one receipt's request and says what its answer means for the receipt (spec 3.4):
// an answer item accepted or rejected; 429 and 5xx retryable (refused before anything
// happened); no answer, or one we can't read, uncertain (never resent).

export interface ProviderCall {
  http_status: number | null;
  response: unknown;
  request_id: string | null;
  error: ReceiptError | null;
}

export type Verdict =
  | ({ kind: 'submitted'; accepted: boolean; submission_id: string | null; created: Created | null } & ProviderCall)
  | ({ kind: 'retryable' } & ProviderCall)
  | ({ kind: 'uncertain'; cause: 'reply_lost' | 'ambiguous' } & ProviderCall);

export interface Clients {
  selling: SellingClient;
  ads: AdsClient;
  sellerId: string;
}

export interface Sendable {
  request: MarketplaceRequest;
  receipt: { account_id: string; action: Action };
}

type ListingsRequest = Extract<MarketplaceRequest, { api: 'listings' }>;

/**
 * Sends one request carrying every item of `batch` and gives each receipt its own verdict.
 * Listing patches of one SKU share a call, their patches concatenated in admission order;
 * Sponsored Products items share profile, resource and operation, each with its own 207 item.
 * Without an item-by-item answer, the whole answer's fate is each one's.
 */
export async function send(clients: Clients, batch: readonly Sendable[]): Promise<Verdict[]> {
  const first = batch[0]!.request;
  if (first.api === 'listings')
    return sendPatches(
      clients,
      batch.map((b) => b.request as ListingsRequest),
    );
  try {
    const sp = clients.ads.sp;
    const requests = batch.map((b) => b.request as Extract<MarketplaceRequest, { api: 'sp' }>);
    const items = requests.map((r) => (r.operation === 'delete' ? r.id : r.item));
    const result =
      first.operation === 'delete'
        ? await sp.delete(first.profileId, first.resource, items as string[])
        : first.operation === 'update'
          ? await sp.update(first.profileId, first.resource, items as object[])
          : await sp.create(first.profileId, first.resource, items as object[]);
    const call = { http_status: result.status, response: result.raw, request_id: result.requestId };
    return requests.map((request, index): Verdict => {
      const { receipt } = batch[index]!;
      const success = result.success.find((s) => s.index === index);
      if (success) {
        const created =
          request.creates && isCreation(receipt.action)
            ? {
                type: CREATED_TYPE[receipt.action],
                id: adsEntityId(request.creates, receipt.account_id, first.profileId, success.id),
                providerId: success.id,
              }
            : null;
        return { kind: 'submitted', accepted: true, submission_id: null, created, ...call, error: null };
      }
      const failure = result.error.find((e) => e.index === index);
      if (failure)
        return {
          kind: 'submitted',
          accepted: false,
          submission_id: null,
          created: null,
          ...call,
          error: itemError(failure.errors),
        };
      return {
        kind: 'uncertain',
        cause: 'ambiguous',
        ...call,
        error: {
          code: 'ambiguous',
          message: `the multi-status answer names neither a success nor an error for item ${index}`,
        },
      };
    });
  } catch (err) {
    const verdict = failed(err);
    return batch.map(() => verdict);
  }
}

/**
 * One SKU's patches in one call, in admission order. The marketplace answers a submission as a
 * whole, so an accepted or lost answer is each receipt's. A refused one applied nothing, and need
 * not be any one patch's fault: each is then sent alone, in order, for an answer of its own, while
 * the answers settle it; behind one that does not (a retry, a lost answer: today it would hold
 * them back), the rest take the combined refusal as a retry, which sends them again later.
 */
async function sendPatches(clients: Clients, requests: readonly ListingsRequest[]): Promise<Verdict[]> {
  const first = requests[0]!;
  const patches = requests.flatMap((r) => r.body.patches);
  const together = await sendPatch(clients, first, { ...first.body, patches });
  if (requests.length === 1 || together.kind !== 'submitted' || together.accepted) return requests.map(() => together);
  const verdicts: Verdict[] = [];
  for (const request of requests) {
    const settled = verdicts.every((v) => v.kind === 'submitted');
    verdicts.push(
      settled
        ? await sendPatch(clients, request, request.body)
        : {
            kind: 'retryable',
            http_status: together.http_status,
            response: together.response,
            request_id: together.request_id,
            error: {
              code: 'combined_refused',
              message: `sent with ${requests.length - 1} other patches of its SKU in a call the marketplace refused (${together.error?.code}); nothing was applied, it goes again`,
            },
          },
    );
  }
  return verdicts;
}

async function sendPatch(clients: Clients, request: ListingsRequest, body: ListingsRequest['body']): Promise<Verdict> {
  let answer: HttpAnswer = { status: 0, requestId: null };
  try {
    const response = await clients.selling.listings.patchListingsItem(
      clients.sellerId,
      request.sku,
      request.marketplaceId,
      body,
      { onAnswer: (a) => (answer = a) },
    );
    const accepted = response.status === 'ACCEPTED';
    const issue = response.issues?.find((i) => i.severity === 'ERROR');
    return {
      kind: 'submitted',
      accepted,
      submission_id: response.submissionId,
      created: null,
      http_status: answer.status,
      response,
      request_id: answer.requestId,
      error: accepted
        ? null
        : { code: issue?.code ?? response.status, message: issue?.message ?? `the submission is ${response.status}` },
    };
  } catch (err) {
    return failed(err);
  }
}

/** A call that threw: no answer, or one we can't read, uncertain; 429 and 5xx retryable; any other refused. */
function failed(err: unknown): Verdict {
  if (!(err instanceof MarketplaceError)) throw err;
  const call = {
    http_status: err.status,
    response: err.body ?? null,
    request_id: err.requestId,
    error: { code: err.code, message: err.message },
  };
  return err.status === null
    ? { kind: 'uncertain', cause: 'reply_lost', ...call }
    : err.code === 'invalid_response'
      ? { kind: 'uncertain', cause: 'ambiguous', ...call }
      : err.retryable
        ? { kind: 'retryable', ...call }
        : { kind: 'submitted', accepted: false, submission_id: null, created: null, ...call };
}

/** The first error of a 207 item: its reason and message. */
function itemError(errors: SpMutationError[]): ReceiptError {
  const first = Object.values(errors[0]?.errorValue ?? {})[0];
  return first
    ? { code: first.reason, message: first.message }
    : { code: 'rejected', message: 'the marketplace rejected the item' };
}
