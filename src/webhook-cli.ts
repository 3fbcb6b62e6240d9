import { parseArgs } from 'node:util';
import type { WebhookCall } from './commands/webhook/context.js';
import { firstAttempt } from './commands/webhook/first-attempt.js';
import { sendTestWebhook } from './commands/webhook/posts.js';
import {
  configureWebhook,
  removeWebhook,
  rotateWebhookSecret,
  setWebhookEnabled,
  updateWebhook,
} from './commands/webhook/settings.js';
import type { WebhookChanges } from './domain/webhook/decide.js';
import { WebhookKind } from './domain/webhook/events.js';
import { headersFromLines } from './domain/webhook/rules.js';
import type { Position } from './eventstore/port.js';
import type { Logger } from './infra/logger.js';
import { createRedis } from './infra/redis.js';
import { checkRedis } from './infra/reachability.js';
import { UsageError } from './projections/rebuild-command.js';
import { webhookDeliveriesProjection } from './projections/webhook/deliveries.js';
import { webhooksProjection } from './projections/webhook/projection.js';
import { listDeliveries, listWebhooks } from './projections/webhook/queries.js';
import type { Projection } from './projections/projection.js';
import { webhookNotifier, webhookQueue } from './workers/webhook/queue.js';

// `npm run cli -- webhook …`: an account's webhook settings, as the console's Settings manages them
// too (spec 2.13), "send test" and the deliveries' activity (spec 4.13).

export const WEBHOOK_USAGE = `  webhook add --account <id> --name <name> --url <https url> [--header 'Name: value']... [--type json|chat]
                                              configure a webhook; prints its signing secret once
  webhook list --account <id>                 the account's webhooks (header values never shown)
  webhook update --account <id> --name <name> [--new-name <name>] [--url <url>] [--type json|chat]
                 [--header 'Name: value']... | [--clear-headers]  [--enable | --disable]
  webhook remove --account <id> --name <name>
  webhook rotate-secret --account <id> --name <name>
                                              a new signing secret, printed once
  webhook test --account <id> --name <name>   send the test payload through the delivery worker;
                                              waits up to 30 s for its first attempt
  webhook deliveries --account <id> [--name <name>] [--limit <n>]
                                              recent deliveries, newest first, with each attempt`;

export interface WebhookCliDeps {
  call: WebhookCall;
  redisUrl: string;
  redisPrefix: string;
  logger: Logger;
  /** waits until these projections have applied the position (null: nothing to wait for; undefined: the log's head) */
  project(position: Position | null | undefined, projections: Projection[]): Promise<void>;
  print(line: string): void;
}

const FIRST_ATTEMPT_WAIT_MS = 30_000;

function parse(rest: string[]) {
  const { values } = parseArgs({
    args: rest,
    options: {
      account: { type: 'string' },
      name: { type: 'string' },
      'new-name': { type: 'string' },
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
      'clear-headers': { type: 'boolean' },
      type: { type: 'string' },
      enable: { type: 'boolean' },
      disable: { type: 'boolean' },
      limit: { type: 'string' },
    },
    strict: true,
  });
  const required = (name: 'account' | 'name' | 'url'): string => {
    const value = values[name];
    if (!value) throw new UsageError(`--${name} is required\nusage:\n${WEBHOOK_USAGE}`);
    return value;
  };
  return { values, required };
}

function kindOf(type: string | undefined): WebhookKind | undefined {
  if (type === undefined) return undefined;
  const kind = WebhookKind.safeParse(type);
  if (!kind.success) throw new UsageError(`--type: '${type}' is neither json nor chat`);
  return kind.data;
}

/** How the delivery's first attempt went, in a line. */
async function firstAttemptLine(deps: WebhookCliDeps, delivery_id: string): Promise<string> {
  const first = await firstAttempt(deps.call.store, delivery_id, FIRST_ATTEMPT_WAIT_MS);
  if (first.kind === 'cancelled') return `cancelled: ${first.reason}`;
  if (first.kind === 'queued')
    return `queued; no worker tried it within ${FIRST_ATTEMPT_WAIT_MS / 1000} s (is a worker role running?)`;
  const a = first.attempt;
  const answer = a.status === null ? a.error : `HTTP ${a.status}${a.error ? ` (${a.error})` : ''}`;
  const then = a.outcome === 'retry' ? `; next attempt at ${a.next_attempt_at}` : '';
  return `attempt ${a.attempt}: ${a.outcome}: ${answer} in ${a.duration_ms} ms${then}`;
}

async function sendTest(deps: WebhookCliDeps, account: string, name: string): Promise<void> {
  await checkRedis(deps.redisUrl);
  const redis = createRedis(deps.redisUrl);
  const queue = webhookQueue(redis, deps.redisPrefix);
  try {
    const { delivery_id } = await sendTestWebhook(
      { store: deps.call.store, notifier: webhookNotifier(queue), logger: deps.logger },
      { accountId: account, name, by: deps.call.by },
    );
    deps.print(`test delivery ${delivery_id}`);
    deps.print(await firstAttemptLine(deps, delivery_id));
  } finally {
    await queue.close();
    await redis.quit();
  }
}

export async function runWebhookCommand(action: string | undefined, rest: string[], deps: WebhookCliDeps) {
  const { values, required } = parse(rest);
  const settings = async (recorded: Promise<{ position: Position | null }>, done: string) => {
    const { position } = await recorded;
    await deps.project(position, [webhooksProjection]);
    deps.print(position ? done : `${done} (nothing changed)`);
  };
  const account = required('account');
  switch (action) {
    case 'add': {
      const added = await configureWebhook(deps.call, {
        account_id: account,
        name: required('name'),
        url: required('url'),
        headers: headersFromLines(values.header ?? []),
        kind: kindOf(values.type) ?? 'json',
      });
      await deps.project(added.position, [webhooksProjection]);
      deps.print(`webhook id: ${added.webhook_id}\nsigning secret (shown once): ${added.secret}`);
      return;
    }
    case 'list':
      for (const w of await listWebhooks(deps.call.db, account))
        deps.print(
          [
            w.name,
            w.kind,
            w.enabled ? 'enabled' : 'disabled',
            w.url,
            w.header_names.length ? `headers: ${w.header_names.join(', ')}` : 'no headers',
          ].join('  '),
        );
      return;
    case 'update': {
      const name = required('name');
      if (values.enable && values.disable) throw new UsageError('--enable and --disable: pick one');
      if (values.header && values['clear-headers']) throw new UsageError('--header and --clear-headers: pick one');
      const changes: WebhookChanges = {
        ...(values['new-name'] !== undefined ? { name: values['new-name'] } : {}),
        ...(values.url !== undefined ? { url: values.url } : {}),
        ...(values.header
          ? { headers: headersFromLines(values.header) }
          : values['clear-headers']
            ? { headers: {} }
            : {}),
        ...(values.type !== undefined ? { kind: kindOf(values.type)! } : {}),
      };
      if (Object.keys(changes).length > 0) await settings(updateWebhook(deps.call, account, name, changes), 'updated');
      const current = changes.name ?? name;
      if (values.enable || values.disable)
        await settings(
          setWebhookEnabled(deps.call, account, current, Boolean(values.enable)),
          values.enable ? 'enabled' : 'disabled',
        );
      return;
    }
    case 'remove':
      return settings(removeWebhook(deps.call, account, required('name')), 'removed');
    case 'rotate-secret': {
      const rotated = await rotateWebhookSecret(deps.call, account, required('name'));
      await deps.project(rotated.position, [webhooksProjection]);
      deps.print(`signing secret (shown once): ${rotated.secret}`);
      return;
    }
    case 'test':
      return sendTest(deps, account, required('name'));
    case 'deliveries': {
      const limit = Number(values.limit ?? 20);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        throw new UsageError(`--limit: '${values.limit}' is not a whole number from 1 to 100`);
      await deps.project(undefined, [webhookDeliveriesProjection]);
      const filter = { limit, ...(values.name ? { webhook_name: values.name } : {}) };
      for (const d of await listDeliveries(deps.call.db, account, filter)) {
        deps.print(`${d.requested_at}  ${d.webhook_name}  ${d.status}  ${d.delivery_id}  (${d.cause.kind})`);
        for (const a of d.attempts)
          deps.print(
            `  attempt ${a.attempt}  ${a.outcome}  ${a.status ?? '-'}  ${a.duration_ms} ms${a.error ? `  ${a.error}` : ''}`,
          );
      }
      return;
    }
    default:
      throw new UsageError(`usage:\n${WEBHOOK_USAGE}`);
  }
}
