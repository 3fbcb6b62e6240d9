import type { FastifyReply } from 'fastify';
import { automationsPaused, setAutomationsPaused } from '../../../commands/automation/pause.js';
import { admissionsPaused } from '../../../projections/admission/queries.js';
import { html, type Html } from '../../page.js';
import { backTo, notFound, type Handler, type Seller, type SettingsDeps } from './context.js';
import { postForm } from './fields.js';

// Pauses: the seller's pause of every automation of an account (domain/automation/pause.ts; the
// live reactor honours it), and whether the operator has paused new marketplace write requests
// (`npm run cli -- admissions disable`; operators have no web role, so it is only shown here).

export async function pausesSection(reply: FastifyReply, seller: Seller, deps: SettingsDeps): Promise<Html> {
  const operator = await admissionsPaused(deps.db);
  const accounts = await Promise.all(
    seller.accounts.map(async (a) => ({ account: a, paused: await automationsPaused(seller.ctx, a.id) })),
  );
  return html`${accounts.map(
      ({ account, paused }) =>
        html`<p>
            <strong>${account.name}</strong>:
            ${
              paused
                ? 'every automation is paused: marketplace events are not run until you resume (those that arrive meanwhile are never run).'
                : 'automations run on marketplace events.'
            }
          </p>
          ${postForm(reply, {
            id: `account-${account.id}-pause`,
            action: '/console/settings/pauses/automations',
            hidden: { account: account.id, paused: paused ? 'no' : 'yes' },
            submit: paused ? `Resume automations of ${account.name}` : `Pause every automation of ${account.name}`,
          })}`,
    )}
    <p>
      New marketplace write requests:
      ${
        operator.disabled
          ? `paused by the operator${operator.reason ? ` (${operator.reason})` : ''}; requests already queued still go out.`
          : 'accepted.'
      }
    </p>`;
}

export const pausePosts = (deps: SettingsDeps): Record<string, Handler> => ({
  async automations(_reply, seller, f) {
    const account = seller.accounts.find((a) => a.id === f.account);
    if (!account) return notFound('That account is not one of yours.');
    const paused = f.paused === 'yes';
    await setAutomationsPaused(seller.ctx, {
      account_id: account.id,
      paused,
      by: seller.userId,
      at: (deps.now ?? (() => new Date()))(),
    });
    return backTo('pauses', paused ? 'paused' : 'resumed');
  },
});
