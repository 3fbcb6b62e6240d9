import { obj, str, type Json } from '../shared/json.js';
import { adsStreamTypeOf, streamType, type StreamType } from '../stream/types.js';

// What a pushed marketplace message is (docs/marketplace-events.md): a selling notification in its
// PascalCase or camelCase envelope, or one Marketing Stream dataset row. Pure: the ingestion
// endpoint has already checked who sent it.

/** The first of `keys` the object has a non-empty string or a number under (provider ids come as either), as text. */
export const pick = (o: Json | undefined, ...keys: string[]): string | null => {
  for (const k of keys) {
    const v = o?.[k];
    if (typeof v === 'number') return String(v);
    if (str(v) !== null) return v as string;
  }
  return null;
};

export interface MessageKind {
  stream_type: string;
  source: 'selling' | 'ads';
  occurred_at: string;
}

const instant = (v: string | null): string | null => {
  if (v === null) return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
};

/** When an ads dataset row says its fact happened: the hour described, the usage update, the entity's last change. */
function adsOccurredAt(row: Json): string | null {
  return instant(
    pick(row, 'time_window_start', 'timeWindowStart', 'usageUpdatedTimestamp', 'usage_updated_timestamp') ??
      pick(obj(row.audit), 'lastUpdatedDateTime', 'last_updated_date_time'),
  );
}

/**
 * The type, source and time of a message, or why it is none the service knows. A message that
 * names no time of its own happened when it arrived.
 */
export function readMessage(body: unknown, received_at: string): MessageKind | { refused: string } {
  const row = obj(body);
  if (!row) return { refused: 'the body is not a JSON object' };
  const notification = pick(row, 'NotificationType', 'notificationType');
  if (notification !== null) {
    const t = streamType(notification);
    if (t?.source !== 'selling') return { refused: `notification type '${notification}' is no selling event type` };
    return {
      stream_type: t.code,
      source: 'selling',
      occurred_at: instant(pick(row, 'EventTime', 'eventTime')) ?? received_at,
    };
  }
  const dataset = pick(row, 'dataset_id', 'datasetId');
  if (dataset === null) return { refused: 'neither a notification type nor a dataset id' };
  const t: StreamType | undefined = adsStreamTypeOf(dataset);
  if (!t) return { refused: `dataset '${dataset}' is no Marketing Stream dataset the service knows` };
  return { stream_type: t.code, source: 'ads', occurred_at: adsOccurredAt(row) ?? received_at };
}
