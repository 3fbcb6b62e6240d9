import type { Created, ReceiptError } from '../../domain/mutation/events.js';
import { CREATED_TYPE, isCreation, type Action } from '../../domain/mutation/payloads.js';
import { MarketplaceError, type AdsClient, type SellingClient } from '../../marketplace/clients/index.js';
import type { HttpAnswer } from '../../marketplace/clients/http.js';
import type { SpMutationError } from '../../marketplace/clients/ads-sp-types.js';
import { adsEntityId } from '../../projections/observed/ads-datasets.js';
import type { MarketplaceRequest } from './requests.js';

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

export async function send(clients: Clients, request: MarketplaceRequest, receipt: { account_id: string; action: Action }): Promise<Verdict> {
  let answer: HttpAnswer = { status: 0, requestId: null };
  try {
    if (request.api === 'listings') {
      const body = await clients.selling.listings.patchListingsItem(clients.sellerId, request.sku, request.marketplaceId, request.body, { onAnswer: (a) => (answer = a) });
      const accepted = body.status === 'ACCEPTED';
      const issue = body.issues?.find((i) => i.severity === 'ERROR');
      const error = accepted ? null : { code: issue?.code ?? body.status, message: issue?.message ?? `the submission is ${body.status}` };
      return { kind: 'submitted', accepted, submission_id: body.submissionId, created: null, http_status: answer.status, response: body, request_id: answer.requestId, error };
    }
    const sp = clients.ads.sp;
    const result =
      request.operation === 'delete'
        ? await sp.delete(request.profileId, request.resource, [request.id])
        : request.operation === 'update'
          ? await sp.update(request.profileId, request.resource, [request.item])
          : await sp.create(request.profileId, request.resource, [request.item]);
    const call = { http_status: result.status, response: result.raw, request_id: result.requestId };
    const success = result.success.find((s) => s.index === 0);
    if (success) {
      const created = request.creates && isCreation(receipt.action)
        ? { type: CREATED_TYPE[receipt.action], id: adsEntityId(request.creates, receipt.account_id, request.profileId, success.id), providerId: success.id }
        : null;
      return { kind: 'submitted', accepted: true, submission_id: null, created, ...call, error: null };
    }
    const failure = result.error.find((e) => e.index === 0);
    if (failure) return { kind: 'submitted', accepted: false, submission_id: null, created: null, ...call, error: itemError(failure.errors) };
    return { kind: 'uncertain', cause: 'ambiguous', ...call, error: { code: 'ambiguous', message: 'the multi-status answer names neither a success nor an error for the request' } };
  } catch (err) {
    if (!(err instanceof MarketplaceError)) throw err;
    const call = { http_status: err.status, response: err.body ?? null, request_id: err.requestId, error: { code: err.code, message: err.message } };
    if (err.status === null) return { kind: 'uncertain', cause: 'reply_lost', ...call };
    if (err.code === 'invalid_response') return { kind: 'uncertain', cause: 'ambiguous', ...call };
    if (err.retryable) return { kind: 'retryable', ...call };
    return { kind: 'submitted', accepted: false, submission_id: null, created: null, ...call };
  }
}

/** The first error of a 207 item: its reason and message. */
function itemError(errors: SpMutationError[]): ReceiptError {
  const first = Object.values(errors[0]?.errorValue ?? {})[0];
  return first ? { code: first.reason, message: first.message } : { code: 'rejected', message: 'the marketplace rejected the item' };
}
