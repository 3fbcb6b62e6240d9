import { DomainError } from '../shared/errors.js';
import type { WebhookKind } from './events.js';

// The body of a post (spec 2.13): a string payload is wrapped as `{ "text": … }`; a chat webhook
// always gets that shape, any other payload becoming its JSON text (a `text` string property is
// taken as it is), so a chat service never gets a body it can't show.

/** Serialized body of one post, in bytes. */
export const MAX_BODY_BYTES = 100_000;
/** Posts one run may make. */
export const MAX_POSTS_PER_RUN = 20;

const json = (value: unknown, what: string): string => {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new DomainError('invalid', `${what}: not JSON-serializable (${(err as Error).message})`);
  }
  if (text === undefined) throw new DomainError('invalid', `${what}: ${typeof value} is not a JSON value`);
  return text;
};

const hasText = (v: unknown): v is { text: string } =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { text?: unknown }).text === 'string';

/** The exact JSON body for `payload` posted to a webhook of this kind; `what` names it in errors. */
export function webhookBody(kind: WebhookKind, payload: unknown, what = 'payload'): string {
  const serialized = json(payload, what);
  let body: string;
  if (typeof payload === 'string') body = JSON.stringify({ text: payload });
  else if (kind === 'chat')
    body = JSON.stringify({ text: hasText(payload) ? payload.text : JSON.stringify(payload, null, 2) });
  else body = serialized;
  const bytes = Buffer.byteLength(body);
  if (bytes > MAX_BODY_BYTES)
    throw new DomainError('invalid', `${what}: its body is ${bytes} bytes; at most ${MAX_BODY_BYTES}`);
  return body;
}
