import type { FastifyReply } from 'fastify';
import { setAdmissions } from '../../../commands/admission/switch.js';
import { automationsPaused, setAutomationsPaused } from '../../../commands/automation/pause.js';
import { admissionsPaused } from '../../../projections/admission/queries.js';
import { isOperator } from '../../../projections/auth/queries.js';
import { html, type FormFields, type Html } from '../../page.js';
import { backTo, forbidden, notFound, refusedForm, type Handler, type Seller, type SettingsDeps } from './context.js';
import { confirmBox, postForm, textField, unconfirmed, type Problems } from './fields.js';

// Pauses: the seller's pause of every automation of an account (domain/automation/pause.ts; the
// live reactor honours it), and the operator's pause of new marketplace write requests
// (domain/admission/switch.ts, as `npm run cli -- admissions disable` switches it): a user
// holding the operator role (docs/decisions/161-operator-role.md) switches it here too, every
// other seller only sees it.

const ADMISSIONS_FORM = 'admissions';
/** a reason every refused MCP call repeats: a sentence, not an essay */
const MAX_REASON = 200;

/** The operator's form: pausing takes an optional reason and the box ticked; resuming, one button. */
const admissionsForm = (reply: FastifyReply, disabled: boolean, f: FormFields = {}, problems: Problems = {}) =>
  postForm(
    reply,
    {
      id: ADMISSIONS_FORM,
      action: '/console/settings/pauses/admissions',
      hidden: { paused: disabled ? 'no' : 'yes' },
      submit: disabled ? 'Resume new marketplace write requests' : 'Pause new marketplace write requests',
    },
    disabled
      ? html``
      : html`${textField({
          form: ADMISSIONS_FORM,
          problems,
          name: 'reason',
          label: 'Reason (optional)',
          value: f.reason ?? '',
          max: MAX_REASON,
          hint: 'Every seller sees it, and their MCP clients in the refusal.',
        })}${confirmBox({
          form: ADMISSIONS_FORM,
          problems,
          label: "Yes, pause: every seller's new write requests are refused until resumed (queued ones still go out)",
        })}`,
  );

export async function pausesSection(reply: FastifyReply, seller: Seller, deps: SettingsDeps): Promise<Html> {
  const [admissions, operator] = await Promise.all([admissionsPaused(deps.db), isOperator(deps.db, seller.userId)]);
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
        admissions.disabled
          ? `paused by the operator${admissions.reason ? ` (${admissions.reason})` : ''}; requests already queued still go out.`
          : 'accepted.'
      }
    </p>
    ${operator ? admissionsForm(reply, admissions.disabled) : ''}`;
}

export function pausePosts(deps: SettingsDeps): Record<string, Handler> {
  const now = deps.now ?? (() => new Date());
  return {
    async automations(_reply, seller, f) {
      const account = seller.accounts.find((a) => a.id === f.account);
      if (!account) return notFound('That account is not one of yours.');
      const paused = f.paused === 'yes';
      await setAutomationsPaused(seller.ctx, {
        account_id: account.id,
        paused,
        by: seller.userId,
        at: now(),
      });
      return backTo('pauses', paused ? 'paused' : 'resumed');
    },

    async admissions(reply, seller, f) {
      if (!(await isOperator(deps.db, seller.userId)))
        return forbidden('Only an operator pauses or resumes new marketplace write requests.');
      const by = `user:${seller.userId}`;
      const at = now().toISOString();
      if (f.paused !== 'yes') {
        await setAdmissions(seller.ctx, { type: 'EnableAdmissions', by, at });
        return backTo('pauses', 'admissions-resumed');
      }
      const reason = (f.reason ?? '').trim();
      const problems: Problems = {
        ...unconfirmed(f),
        ...(reason.length > MAX_REASON ? { reason: `At most ${MAX_REASON} characters.` } : {}),
      };
      if (Object.keys(problems).length)
        return refusedForm('Pause new marketplace write requests', admissionsForm(reply, false, f, problems));
      await setAdmissions(seller.ctx, { type: 'DisableAdmissions', reason: reason || null, by, at });
      return backTo('pauses', 'admissions-paused');
    },
  };
}
