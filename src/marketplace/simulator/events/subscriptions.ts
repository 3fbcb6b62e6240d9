import type { DatasetId, SellingType } from './types.js';

// Who asked for which events, and where they go. A selling destination is an HTTP push URL
// with a Standard Webhooks signing secret: the simulator's stand-in for the SQS queue or
// EventBridge bus of the real Notifications API. Stream subscriptions carry their own URL and
// secret for the same reason (the real ones name an SQS or Firehose ARN).

export interface PushTarget {
  url: string;
  /** `whsec_<base64>` */
  secret: string;
}

export interface Destination extends PushTarget {
  destinationId: string;
  name: string;
}

export interface SellingSubscription {
  subscriptionId: string;
  sellerId: string;
  notificationType: SellingType;
  payloadVersion: string;
  destinationId: string;
  processingDirective?: unknown;
}

export type StreamStatus = 'PENDING_CONFIRMATION' | 'ACTIVE' | 'ARCHIVED' | 'FAILED_CONFIRMATION';

export interface StreamSubscription extends PushTarget {
  subscriptionId: string;
  profileId: string;
  dataSetId: DatasetId;
  clientRequestToken: string;
  status: StreamStatus;
  createdDate: string;
  updatedDate: string;
  notes?: string;
}

export interface Subscriptions {
  destinations: Map<string, Destination>;
  selling: Map<string, SellingSubscription>;
  streams: Map<string, StreamSubscription>;
  /** The seller's one subscription to a type (the API allows one per type), with its destination. */
  sellingTarget(
    type: SellingType,
    sellerId: string,
  ): { subscription: SellingSubscription; target: PushTarget } | undefined;
  /** The profile's confirmed subscriptions to a dataset. */
  activeStreams(dataSetId: DatasetId, profileId: string): StreamSubscription[];
}

export function createSubscriptions(): Subscriptions {
  const destinations = new Map<string, Destination>();
  const selling = new Map<string, SellingSubscription>();
  const streams = new Map<string, StreamSubscription>();
  return {
    destinations,
    selling,
    streams,
    sellingTarget(type, sellerId) {
      for (const subscription of selling.values()) {
        if (subscription.notificationType !== type || subscription.sellerId !== sellerId) continue;
        const target = destinations.get(subscription.destinationId);
        return target && { subscription, target };
      }
      return undefined;
    },
    activeStreams: (dataSetId, profileId) =>
      [...streams.values()].filter(
        (s) => s.status === 'ACTIVE' && s.dataSetId === dataSetId && s.profileId === profileId,
      ),
  };
}

/** Signing secrets are Standard Webhooks keys: `whsec_` and base64 of at least 24 bytes. */
export const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/;
