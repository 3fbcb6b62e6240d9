import { streamType } from '../../../domain/stream/types.js';
import { notesUnder, type Notes } from '../fields.js';

// The selling notification envelope around a payload fixture, in the case the type is sent in
// (spec 4.11.2), and the sample values every fixture shares.

export interface EventContract {
  /** a complete event of the type in its wire shape: the canned sample of run_automation */
  fixture: Record<string, unknown>;
  notes: Notes;
}

export const SAMPLE = {
  sellerId: 'A2EXAMPLESELLER',
  marketplaceId: 'ATVPDKIKX0DER',
  currency: 'USD',
  asin: 'B0EXAMPLE01',
  sku: 'MUG-GREY-12',
  title: 'Copperleaf Compact Travel Mug, Slate Grey',
  orderId: '113-1234567-1234567',
  at: '2026-05-20T14:05:00Z',
  hour: '2026-05-20T13:00:00Z',
  advertiserId: 'A2EXAMPLESELLER',
  campaignId: '496818010717551',
  adGroupId: '704281077016355',
  adId: '177166551238577',
  targetId: '405924584325281',
} as const;

const ENVELOPE_NOTES: Notes = {
  NotificationVersion: { description: 'version of the envelope' },
  NotificationType: { description: 'the event type code' },
  PayloadVersion: { description: "version of the payload's schema" },
  EventTime: { description: 'when the marketplace says the change happened (ISO 8601 UTC)' },
  Payload: { description: 'the notification body, keys as the marketplace sends them' },
  NotificationMetadata: { description: 'delivery metadata' },
  'NotificationMetadata.NotificationId': { description: 'the notification id (UUID); a redelivery keeps it' },
  'NotificationMetadata.SubscriptionId': { description: "the service's subscription that delivered it" },
  'NotificationMetadata.PublishTime': { description: 'when the marketplace published it (ISO 8601 UTC)' },
  'NotificationMetadata.ApplicationId': { description: "the service's marketplace application id" },
};

const camel = (key: string) => key[0]!.toLowerCase() + key.slice(1);
const camelPath = (path: string) => path.split('.').map(camel).join('.');

/** A selling notification: `payload` and its notes (relative to the payload) in the type's envelope. */
export function sellingEvent(
  code: string,
  payloadVersion: string,
  payload: object,
  payloadNotes: Notes,
): EventContract {
  const key = streamType(code)?.envelope === 'camelCase' ? camel : (k: string) => k;
  const fixture = {
    [key('NotificationVersion')]: payloadVersion === '2020-09-04' ? payloadVersion : '1.0',
    [key('NotificationType')]: code,
    [key('PayloadVersion')]: payloadVersion,
    [key('EventTime')]: SAMPLE.at,
    [key('Payload')]: payload,
    [key('NotificationMetadata')]: {
      [key('ApplicationId')]: 'amzn1.sellerapps.app.00000000-0000-4000-8000-000000000001',
      [key('SubscriptionId')]: '7d7f4b2e-3c1a-4f0e-9a51-3f2a9c1d0b42',
      [key('PublishTime')]: SAMPLE.at,
      [key('NotificationId')]: '0f6c2d8e-5b7a-4c1e-8d3f-2a9b6c4e1f70',
    },
  };
  const envelope = Object.fromEntries(
    Object.entries(ENVELOPE_NOTES).map(([path, note]) => [key === camel ? camelPath(path) : path, note]),
  );
  return { fixture, notes: { ...envelope, ...notesUnder(key('Payload'), payloadNotes) } };
}
