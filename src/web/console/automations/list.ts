import { html, type Html } from '../../page.js';

// The Automations list: the seller's automations grouped per event type, each with its state and
// its event type's subscription, linking to its page.

/** An automation as list_automations answers it (spec 2.2). */
export interface AutomationListed {
  id: string;
  stream_type: string;
  state: 'draft' | 'live' | 'archived';
  title: string;
  version: number;
  subscription: 'active' | 'none' | 'failed' | 'not_required';
  account_name: string | null;
  updated_at: string;
}

const SUBSCRIPTIONS: Record<AutomationListed['subscription'], string> = {
  active: 'subscribed, events flowing',
  none: 'not subscribed',
  failed: 'subscribing failed',
  not_required: 'no subscription needed',
};

export const subscriptionText = (s: AutomationListed['subscription']): string => SUBSCRIPTIONS[s];

/** `path`: where the list is (its automations' pages are under it). */
export function listBody(automations: readonly AutomationListed[], path: string, archived: boolean): Html {
  const groups = new Map<string, AutomationListed[]>();
  for (const a of automations) groups.set(a.stream_type, [...(groups.get(a.stream_type) ?? []), a]);
  const types = [...groups.keys()].sort();
  return html`<form method="get" action="${path}" class="filters">
      <div class="choice">
        <input type="checkbox" id="archived" name="archived" value="1" ${archived ? html`checked` : ''} />
        <label for="archived">Show archived automations</label>
      </div>
      <button type="submit">Show</button>
    </form>
    ${types.length === 0 ? html`<p>No automations yet. An MCP client makes them with create_automation.</p>` : ''}
    ${types.map(
      (type) =>
        html`<section aria-labelledby="type-${type}">
          <h2 id="type-${type}">${type}</h2>
          <ul class="automations">
            ${groups.get(type)!.map(
              (a) =>
                html`<li>
                  <a href="${path}/${a.id}">${a.title}</a>
                  <span class="state state-${a.state}">${a.state}</span>
                  <span
                    >${[`version ${a.version}`, subscriptionText(a.subscription), a.account_name].filter(Boolean).join(', ')}</span
                  >
                </li>`,
            )}
          </ul>
        </section>`,
    )}`;
}
