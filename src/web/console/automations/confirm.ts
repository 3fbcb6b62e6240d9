import { csrfField, html, type Html } from '../../page.js';

// A change that can't be undone asks first, without script: the form posted without `confirmed`
// answers this page, whose own form posts the same fields with `confirmed=yes`.

export const confirmed = (fields: Record<string, string | undefined>): boolean => fields.confirmed === 'yes';

export function confirmBody(
  question: string,
  consequence: string,
  action: string,
  token: string,
  fields: Record<string, string>,
  yes: string,
  back: string,
): Html {
  return html`<p>${question}</p>
    <p>${consequence}</p>
    <form method="post" action="${action}">
      ${csrfField(token)}
      ${Object.entries(fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
      <input type="hidden" name="confirmed" value="yes" />
      <button type="submit">${yes}</button>
      <a href="${back}">Cancel</a>
    </form>`;
}
