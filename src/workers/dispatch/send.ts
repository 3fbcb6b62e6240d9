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

/**
 * Sends one request carrying every item of `batch` (a listing patch is always alone; Sponsored
 * Products items share profile, resource and operation) and gives each receipt its own verdict:
 * its own 207 item, or the whole answer's fate when there is no item-by-item answer.
 */
export async function send(clients: Clients, batch: readonly Sendable[]): Promise<Verdict[]> {
  let answer: HttpAnswer = { status: 0, requestId: null };
  const first = batch[0]!.request;
  try {
    if (first.api === 'listings') {
      const body = await clients.selling.listings.patchListingsItem(
        clients.sellerId,
        first.sku,
        first.marketplaceId,
        first.body,
        { onAnswer: (a) => (answer = a) },
      );
      const accepted = body.status === 'ACCEPTED';
      const issue = body.issues?.find((i) => i.severity === 'ERROR');
      const error = accepted
        ? null
        : { code: issue?.code ?? body.status, message: issue?.message ?? `the submission is ${body.status}` };
      return [
        {
          kind: 'submitted',
          accepted,
          submission_id: body.submissionId,
          created: null,
          http_status: answer.status,
          response: body,
          request_id: answer.requestId,
          error,
        },
      ];
    }
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
    if (!(err instanceof MarketplaceError)) throw err;
    const call = {
      http_status: err.status,
      response: err.body ?? null,
      request_id: err.requestId,
      error: { code: err.code, message: err.message },
    };
    const verdict: Verdict =
      err.status === null
        ? { kind: 'uncertain', cause: 'reply_lost', ...call }
        : err.code === 'invalid_response'
          ? { kind: 'uncertain', cause: 'ambiguous', ...call }
          : err.retryable
            ? { kind: 'retryable', ...call }
            : { kind: 'submitted', accepted: false, submission_id: null, created: null, ...call };
    return batch.map(() => verdict);
  }
}

/** The first error of a 207 item: its reason and message. */
function itemError(errors: SpMutationError[]): ReceiptError {
  const first = Object.values(errors[0]?.errorValue ?? {})[0];
  return first
    ? { code: first.reason, message: first.message }
    : { code: 'rejected', message: 'the marketplace rejected the item' };
}
