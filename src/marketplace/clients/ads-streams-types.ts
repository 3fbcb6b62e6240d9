import { z } from 'zod';

// Wire shapes of Amazon Marketing Stream subscriptions (AmazonMarketingStream_prod_3p.json),
// with the HTTP push destination the simulator (and any push stand-in) accepts beside the
// published SQS and Firehose ones: `httpDestination: { url, secret }`, the secret write-only.

export const STREAM_MEDIA_TYPE = 'application/vnd.amazonmarketingstreamsubscriptions.v1+json';

export const STREAM_STATUSES = [
  'ACTIVE',
  'ARCHIVED',
  'FAILED_CONFIRMATION',
  'FAILED_PROVISIONING',
  'PENDING_CONFIRMATION',
  'PROVISIONING',
  'SUSPENDED',
] as const;

export const streamSubscriptionSchema = z.looseObject({
  subscriptionId: z.string(),
  dataSetId: z.string(),
  status: z.enum(STREAM_STATUSES),
  createdDate: z.string(),
  updatedDate: z.string(),
  notes: z.string().optional(),
  destinationArn: z.string().optional(),
  destination: z
    .looseObject({
      sqsDestination: z.looseObject({ queueArn: z.string() }).optional(),
      firehoseDestination: z.looseObject({ deliveryStreamArn: z.string() }).optional(),
      httpDestination: z.looseObject({ url: z.string() }).optional(),
    })
    .optional(),
});
export type StreamSubscription = z.infer<typeof streamSubscriptionSchema>;

export type StreamDestination =
  | { httpDestination: { url: string; secret: string } }
  | { sqsDestination: { queueArn: string } }
  | {
      firehoseDestination: { deliveryStreamArn: string; subscriberRoleArn: string; subscriptionRoleArn: string };
    };

export interface CreateStreamSubscriptionRequest {
  /** 22 to 36 characters; the same token makes a retried create answer the same subscription. */
  clientRequestToken: string;
  dataSetId: string;
  destination: StreamDestination;
  notes?: string;
}

export const createStreamSubscriptionResponseSchema = z.looseObject({
  clientRequestToken: z.string(),
  subscriptionId: z.string(),
});
export const getStreamSubscriptionResponseSchema = z.looseObject({ subscription: streamSubscriptionSchema });
export const listStreamSubscriptionsResponseSchema = z.looseObject({
  subscriptions: z.array(streamSubscriptionSchema),
  nextToken: z.string().optional(),
});
