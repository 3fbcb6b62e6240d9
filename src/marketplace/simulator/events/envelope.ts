import { CAMEL_CASE_TYPES, VERSIONS, type SellingType } from './types.js';

// The selling notification envelope, one builder for every type: the published examples
// differ only in the case of the envelope's keys (PascalCase, or camelCase for seven types).

export interface NotificationMetadata {
  applicationId: string;
  subscriptionId: string;
  notificationId: string;
  publishTime: string;
}

export function sellingEnvelope(
  type: SellingType,
  payloadVersion: string,
  eventTime: string,
  payload: object,
  metadata: NotificationMetadata,
): Record<string, unknown> {
  const key = CAMEL_CASE_TYPES.has(type) ? (k: string) => k : (k: string) => k[0]!.toUpperCase() + k.slice(1);
  return {
    [key('notificationVersion')]: VERSIONS[type].notification,
    [key('notificationType')]: type,
    [key('payloadVersion')]: payloadVersion,
    [key('eventTime')]: eventTime,
    [key('payload')]: payload,
    [key('notificationMetadata')]: {
      [key('applicationId')]: metadata.applicationId,
      [key('subscriptionId')]: metadata.subscriptionId,
      [key('publishTime')]: metadata.publishTime,
      [key('notificationId')]: metadata.notificationId,
    },
  };
}
