import type { FastifyReply } from 'fastify';
import { DomainError } from '../../../domain/shared/errors.js';
import { csrfField, html, type Html } from '../../page.js';
import { csrfToken } from '../../session.js';

// Settings' forms: every input labelled, a problem shown beside its field (aria-describedby), ids
// unique on the page (each form's fields prefixed with the form's id), no script needed.

/** A field's problem by field name. */
export type Problems = Partial<Record<string, string>>;

/** A command's refusal of one of the form's fields, as that field's problem; anything else is thrown on. */
export function problemsOf(err: unknown, fields: readonly string[]): Problems {
  const argument = err instanceof DomainError ? err.extra.argument : undefined;
  if (err instanceof DomainError && typeof argument === 'string' && fields.includes(argument))
    return { [argument]: err.detail.replace(new RegExp(`^${argument}: `), '') };
  throw err;
}

interface Field {
  /** the form's id on the page */
  form: string;
  name: string;
  label: string;
  problems: Problems;
  hint?: string;
}

const idOf = (f: Pick<Field, 'form' | 'name'>) => `${f.form}-${f.name}`;

/** The field's hint and problem, and the attributes that tie them to it. */
function describe(f: Field): { aria: Html; after: Html } {
  const id = idOf(f);
  const problem = f.problems[f.name];
  const ids = [f.hint ? `${id}-hint` : '', problem ? `${id}-problem` : ''].filter(Boolean).join(' ');
  return {
    aria: html`aria-invalid="${problem ? 'true' : 'false'}" ${ids ? html`aria-describedby="${ids}"` : ''}`,
    after: html`${f.hint ? html`<p id="${id}-hint">${f.hint}</p>` : ''}${
      problem ? html`<p id="${id}-problem" class="field-error">${problem}</p>` : ''
    }`,
  };
}

export function textField(
  f: Field & { value?: string; type?: 'text' | 'url'; required?: boolean; max?: number },
): Html {
  const { aria, after } = describe(f);
  return html`<label for="${idOf(f)}">${f.label}</label>
    <input
      id="${idOf(f)}"
      name="${f.name}"
      type="${f.type ?? 'text'}"
      value="${f.value ?? ''}"
      ${f.required ? html`required` : ''}
      ${f.max ? html`maxlength="${f.max}"` : ''}
      ${aria}
    />${after}`;
}

export function textArea(f: Field & { rows?: number }): Html {
  const { aria, after } = describe(f);
  return html`<label for="${idOf(f)}">${f.label}</label>
    <textarea id="${idOf(f)}" name="${f.name}" rows="${f.rows ?? 3}" ${aria}></textarea>${after}`;
}

export function selectField(
  f: Field & { options: ReadonlyArray<{ value: string; text: string }>; value?: string },
): Html {
  const { aria, after } = describe(f);
  return html`<label for="${idOf(f)}">${f.label}</label>
    <select id="${idOf(f)}" name="${f.name}" ${aria}>
      ${f.options.map(
        (o) => html`<option value="${o.value}" ${o.value === f.value ? html`selected` : ''}>${o.text}</option>`,
      )}
    </select>
    ${after}`;
}

/** A destructive action's confirmation: a box to tick (checked again on the server). */
export function confirmBox(f: Omit<Field, 'name'>): Html {
  const field = { ...f, name: 'confirm' };
  const { aria, after } = describe(field);
  return html`<label class="check" for="${idOf(field)}"
      ><input id="${idOf(field)}" name="confirm" type="checkbox" value="yes" required ${aria} /> ${f.label}</label
    >${after}`;
}

/** The confirmation's problem when the box was not ticked. */
export const unconfirmed = (fields: Record<string, string | undefined>): Problems | null =>
  fields.confirm === 'yes' ? null : { confirm: 'Tick the box to confirm: nothing was changed.' };

/** A POST form with its CSRF field and hidden values. */
export const postForm = (
  reply: FastifyReply,
  o: { id: string; action: string; hidden?: Record<string, string>; submit: string },
  fields: Html = html``,
): Html =>
  html`<form id="${o.id}" method="post" action="${o.action}">
    ${csrfField(csrfToken(reply))}${Object.entries(o.hidden ?? {}).map(
      ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
    )}${fields}<button type="submit">${o.submit}</button>
  </form>`;
