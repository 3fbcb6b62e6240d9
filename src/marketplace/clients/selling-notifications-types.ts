import { z } from 'zod';

// Wire shapes of the Notifications API v1 (notifications-api-model), with one addition for
// the simulator and any HTTP push stand-in: a destination resource `http: { url }` (created
// with `{ url, secret }`, the secret never read back) beside the published `sqs` / `eventBridge`.

export const destinationSchema = z.looseObject({
  name: z.string(),
  destinationId: z.string(),
  resource: z.looseObject({
    sqs: z.looseObject({ arn: z.string() }).optional(),
    eventBridge: z.looseObject({ name: z.string(), region: z.string(), accountId: z.string() }).optional(),
    http: z.looseObject({ url: z.string() }).optional(),
  }),
});
export type Destination = z.infer<typeof destinationSchema>;

export const subscriptionSchema = z.looseObject({
  subscriptionId: z.string(),
  payloadVersion: z.string(),
  destinationId: z.string(),
  processingDirective: z.unknown().optional(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

export type DestinationResourceSpecification =
  | { http: { url: string; secret: string } }
  | { sqs: { arn: string } }
  | { eventBridge: { region: string; accountId: string } };

export interface CreateSubscriptionRequest {
  payloadVersion: string;
  destinationId: string;
  processingDirective?: unknown;
}

export const payloadOf = <T extends z.ZodType>(schema: T) => z.looseObject({ payload: schema });
/** Deletes answer `{}` (or `{ errors }`, which the HTTP layer turns into an error first). */
export const emptyAnswerSchema = z.looseObject({});
