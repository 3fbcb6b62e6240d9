import { BlockList, isIP } from 'node:net';
import { DomainError } from '../shared/errors.js';
import type { WebhookHeaders } from './events.js';

// What a webhook's settings must satisfy (spec 2.13, docs/decisions/072-webhook-settings.md). Pure checks
// that throw `invalid` naming the value and why.

/** Webhooks per account. */
export const MAX_WEBHOOKS = 20;
export const MAX_NAME_LENGTH = 64;
export const MAX_URL_LENGTH = 2048;
export const MAX_HEADERS = 20;
export const MAX_HEADER_VALUE_BYTES = 4096;

// Reserved words are not identifiers; `__proto__` is one but would not be an own key of
// `context.webhooks`, and names of Object.prototype's members would shadow them.
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static implements interface package private protected public await arguments eval undefined NaN Infinity'
  ).split(' '),
);
const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u;

const invalid = (argument: string, detail: string) =>
  new DomainError('invalid', `${argument}: ${detail}`, { argument });

export function checkName(name: string): void {
  if (!IDENTIFIER.test(name))
    throw invalid('name', `'${name}' is not a valid JavaScript identifier (context.webhooks.<name>.post)`);
  if (name.length > MAX_NAME_LENGTH) throw invalid('name', `'${name}' is longer than ${MAX_NAME_LENGTH} characters`);
  if (RESERVED.has(name) || name in Object.prototype)
    throw invalid('name', `'${name}' is a reserved word or a built-in property name; choose another`);
}

/**
 * An https URL (plain http only where the operator allows private networks, for local receivers)
 * without user info: credentials belong in headers, not in a URL that logs repeat.
 */
export function checkUrl(url: string, allowHttp: boolean): void {
  if (url.length > MAX_URL_LENGTH) throw invalid('url', `longer than ${MAX_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('url', `'${url}' is not an absolute URL`);
  }
  const schemes = allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol))
    throw invalid(
      'url',
      `'${url}' must use https${allowHttp ? ' or http' : ''} (plain http is allowed only when the operator allows private networks)`,
    );
  if (parsed.username || parsed.password)
    throw invalid('url', `'${url}' carries credentials; put them in a header such as Authorization instead`);
  if (parsed.hash) throw invalid('url', `'${url}' has a #fragment, which is never sent`);
  if (!allowHttp && privateHost(parsed.hostname))
    throw invalid(
      'url',
      `'${url}' names a private, loopback or link-local address, which deliveries never reach (docs/decisions/075-webhook-private-networks.md)`,
    );
}

// Addresses a delivery refuses anyway (the delivery agent checks every resolved address, decision
// 075): refused here too when written as a literal or `localhost`, so the seller learns it at once.
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 3],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 127],
  ['::ffff:0:0', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

function privateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  return family !== 0 && PRIVATE.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** Set by the service on every attempt: configuring them would forge or break the delivery. */
export const SERVICE_HEADERS = [
  'x-service-delivery-id',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-type',
  'content-length',
  'host',
];
/** Hop-by-hop headers (RFC 9110 7.6.1) and others that describe the connection, not the message. */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
];
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// field-vchar and spaces/tabs; no CR, LF, NUL or other controls (header injection)
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\uffff]*$/;

/** Headers from `Name: value` lines (the CLI's --header, the console's text box); blank lines are skipped. */
export function headersFromLines(lines: readonly string[]): WebhookHeaders {
  const headers: WebhookHeaders = {};
  for (const line of lines) {
    if (!line.trim()) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw invalid('headers', `'${line}': write it as 'Name: value'`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

export function checkHeaders(headers: WebhookHeaders): void {
  const names = Object.keys(headers);
  if (names.length > MAX_HEADERS) throw invalid('headers', `${names.length} headers; at most ${MAX_HEADERS}`);
  const seen = new Set<string>();
  for (const name of names) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) throw invalid('headers', `'${name}' is not a valid header name`);
    if (seen.has(lower)) throw invalid('headers', `'${name}' is given twice (header names ignore case)`);
    seen.add(lower);
    if (HOP_BY_HOP.includes(lower))
      throw invalid('headers', `'${name}' is a hop-by-hop header; it describes a connection, not the message`);
    if (SERVICE_HEADERS.includes(lower))
      throw invalid('headers', `'${name}' is set by the service on every delivery (body, signature, delivery id)`);
    const value = headers[name]!;
    if (!FIELD_VALUE.test(value))
      throw invalid('headers', `the value of '${name}' contains control characters (CR, LF, NUL …)`);
    if (Buffer.byteLength(value) > MAX_HEADER_VALUE_BYTES)
      throw invalid('headers', `the value of '${name}' is over ${MAX_HEADER_VALUE_BYTES} bytes`);
  }
}
