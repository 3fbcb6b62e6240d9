import { csrfField, html, type Html } from '../../page.js';
import type { ToolFailure } from '../reads.js';

// What the Automations forms share: the posted fields, a field with its error beside it (named by
// aria-describedby, so a screen reader reads it with the field), and a tool's error as shown.

export type Fields = Record<string, string | undefined>;

/** The posted form's text fields (fastify's formbody parses into an object of strings). */
export const fieldsOf = (body: unknown): Fields =>
  Object.fromEntries(
    Object.entries((body ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === 'string'),
  ) as Fields;

/** Errors by field name; '' for the form as a whole. */
export type FieldErrors = Record<string, string>;

/** The attributes of an input with or without its error. */
export const described = (name: string, errors: FieldErrors): Html =>
  errors[name] ? html`aria-invalid="true" aria-describedby="${name}-error"` : html``;

export const errorBeside = (name: string, errors: FieldErrors): Html | '' =>
  errors[name] ? html`<p class="field-error" id="${name}-error">${errors[name]}</p>` : '';

/** A tool's refusal in the spec's terms: its code, then its detail. */
export const failureText = (e: ToolFailure): string => `${e.code}: ${e.detail}`;

/** A form that posts to `action` with the CSRF token and hidden `fields`, as one button. */
export const buttonForm = (action: string, token: string, label: string, fields: Record<string, string> = {}): Html =>
  html`<form method="post" action="${action}" class="inline">
    ${csrfField(token)}
    ${Object.entries(fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
    <button type="submit">${label}</button>
  </form>`;

/** The Automations pages' styles beside the layout's: radio and checkbox labels inline, one-button forms. */
export const FORM_STYLE = `
[aria-invalid="true"] { border: 2px solid #a51d2d !important; }
.choice label, fieldset label.choice { display: inline; font-weight: normal; margin-left: 0.25rem; }
.choice { margin: 0.5rem 0; }
fieldset { border: 1px solid #ccc; border-radius: 4px; margin: 1rem 0; }
form.inline { display: inline-block; margin-right: 0.5rem; }
textarea { width: 100%; box-sizing: border-box; font: 0.875rem/1.4 ui-monospace, monospace; padding: 0.5rem; border: 1px solid #555; border-radius: 4px; }
input[type='date'] { font: inherit; padding: 0.4rem; border: 1px solid #555; border-radius: 4px; }
.state { font-weight: 600; padding: 0 0.4rem; border: 1px solid #555; border-radius: 4px; }
.automations { padding-left: 1.2rem; }
.automations li { margin: 0.4rem 0; overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; }
td, th { text-align: left; }
`;
