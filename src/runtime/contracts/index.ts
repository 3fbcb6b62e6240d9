import {
  connectionFor,
  selectableStreamType,
  type ContextScope,
  type SubscriptionPolicy,
} from '../../domain/stream/types.js';
import { CAMPAIGN_OR_PORTFOLIO_CONTEXT, ENTITY_CHANGE_CONTEXT, HOURLY_METRICS_CONTEXT } from './context/ads.js';
import { LISTING_CONTEXT } from './context/listing.js';
import { REPORT_CONTEXT } from './context/report.js';
import { SELLING_PARTNER_CONTEXT } from './context/selling-partner.js';
import { EVENT_CONTRACTS } from './events/index.js';
import { AS_SENT, fieldsOf, MAJOR, type Field } from './fields.js';
import { QUEUEING, settersOf, type Setter } from './setters.js';

// The contract of `handle(event, context)` for each of the 24 selectable types, in one place:
// describe_stream_type answers it, the code templates are generated from it, run_automation's
// canned sample is its fixture, and the context builders fill exactly its context fields.

export const CONTEXT_FIELDS: Readonly<Record<ContextScope, readonly Field[]>> = {
  Listing: LISTING_CONTEXT,
  SellingPartner: SELLING_PARTNER_CONTEXT,
  CampaignOrPortfolio: CAMPAIGN_OR_PORTFOLIO_CONTEXT,
  HourlyMetrics: HOURLY_METRICS_CONTEXT,
  EntityChange: ENTITY_CHANGE_CONTEXT,
  Report: REPORT_CONTEXT,
};

export interface StreamContract {
  stream_type: string;
  scope: ContextScope;
  source: 'selling' | 'ads' | 'local';
  connection: 'selling' | 'ads';
  subscription_policy: SubscriptionPolicy;
  seller_only: boolean;
  money: { event: string; context: string };
  event: { envelope: string; fields: Field[]; fixture: Record<string, unknown> };
  context: { fields: readonly Field[] };
  setters: Setter[];
  queueing: typeof QUEUEING;
}

const ENVELOPE = {
  ads: "none: the Marketing Stream message itself, in its dataset's keys",
  local: "none: the service's own completion record (camelCase)",
} as const;

/** A fresh copy of the type's complete sample event (run_automation's canned sample), or undefined. */
export function eventFixture(code: string): Record<string, unknown> | undefined {
  const contract = selectableStreamType(code) && EVENT_CONTRACTS[code];
  return contract ? structuredClone(contract.fixture) : undefined;
}

/** The whole contract of a selectable type, or undefined for any other code. */
export function streamContract(code: string): StreamContract | undefined {
  const type = selectableStreamType(code);
  const event = EVENT_CONTRACTS[code];
  if (!type?.scope || !event) return undefined;
  const context = CONTEXT_FIELDS[type.scope];
  return {
    stream_type: code,
    scope: type.scope,
    source: type.source,
    connection: connectionFor(type),
    subscription_policy: type.policy,
    seller_only: type.sellerOnly,
    money: {
      event: `${AS_SENT}: never converted; minor units nowhere`,
      context: `${MAJOR}; tools report the same money in integer minor units`,
    },
    event: {
      envelope: type.envelope
        ? `selling notification, ${type.envelope} keys; a live event carries only the fields that changed`
        : ENVELOPE[type.source as keyof typeof ENVELOPE],
      fields: fieldsOf(event.fixture, event.notes),
      fixture: structuredClone(event.fixture),
    },
    context: { fields: context },
    setters: settersOf(context),
    queueing: QUEUEING,
  };
}
