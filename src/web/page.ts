import type { FastifyReply, FastifyRequest } from 'fastify';

// HTML for the service's own pages: plain, accessible, no JavaScript. Every interpolated value
// is escaped unless it is already Html (made by `html` itself).

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Part = Html | string | number | null | undefined | false | readonly Part[];

const render = (part: Part): string => {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
};

/** A tagged template: `html\`<p>${name}</p>\`` escapes `name`. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  return new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]!) : ''), ''));
}

export type FormFields = Record<string, string | undefined>;

/** A posted form's text fields (a repeated or non-text field reads as absent). */
export const formOf = (req: FastifyRequest): FormFields => {
  const body = req.body;
  if (typeof body !== 'object' || body === null) return {};
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]));
};

/** A form's hidden CSRF field (session.ts issues the token). */
export const csrfField = (token: string): Html => html`<input type="hidden" name="_csrf" value="${token}" />`;

export interface PageOptions {
  title: string;
  /** a message shown above the content, e.g. what was wrong with a form */
  notice?: string | undefined;
  /** whether the visitor is signed in: the navigation then offers the account and connections pages */
  signedIn?: boolean;
  /** a second navigation under the site's, e.g. the console's pages */
  sections?: Html;
  /** a wider column, for charts and tables */
  wide?: boolean;
  /** the page's own styles, after the layout's */
  style?: string;
}

/** Answers with a page, never cached (it may show a signed-in seller's data or a form's token). */
export const sendPage = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);

/** A whole page in the service's one layout. */
export function page(options: PageOptions, body: Html): string {
  const nav = options.signedIn
    ? html`<a href="/console">Console</a> · <a href="/account">Account</a> ·
        <a href="/connections">Marketplace connections</a>`
    : html`<a href="/sign-in">Sign in</a> · <a href="/sign-up">Sign up</a>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title} · Marketplace automation</title>
        <style>
          body {
            font:
              16px/1.5 system-ui,
              sans-serif;
            max-width: 36rem;
            margin: 2rem auto;
            padding: 0 1rem;
            color: #111;
            background: #fff;
          }
          label {
            display: block;
            margin: 0.75rem 0 0.25rem;
            font-weight: 600;
          }
          input[type='email'],
          input[type='password'],
          input[type='text'],
          input[type='url'],
          textarea {
            width: 100%;
            padding: 0.5rem;
            font: inherit;
            border: 1px solid #555;
            border-radius: 4px;
            box-sizing: border-box;
          }
          body.wide {
            max-width: 64rem;
          }
          select {
            font: inherit;
            padding: 0.4rem;
            border: 1px solid #555;
            border-radius: 4px;
          }
          table {
            border-collapse: collapse;
          }
          th,
          td {
            padding: 0.2rem 0.75rem;
            text-align: right;
            border-bottom: 1px solid #ccc;
          }
          th[scope='row'] {
            text-align: left;
          }
          pre {
            white-space: pre-wrap;
            overflow-wrap: anywhere;
          }
          .chart {
            margin: 0 0 1.5rem;
          }
          .key {
            display: inline-block;
            width: 0.8em;
            height: 0.8em;
          }
          .timeline {
            list-style: none;
            padding: 0;
            overflow-wrap: anywhere;
          }
          .timeline > li {
            border-top: 1px solid #ccc;
            padding: 0.5rem 0;
          }
          .timeline h2 {
            font-size: 1.05rem;
            margin: 0;
          }
          .timeline p {
            margin: 0.25rem 0;
          }
          .facts {
            display: grid;
            grid-template-columns: max-content 1fr;
            gap: 0.1rem 1rem;
            overflow-wrap: anywhere;
          }
          .facts dt {
            font-weight: 600;
          }
          .facts dd {
            margin: 0;
          }
          nav a {
            display: inline-block;
            padding: 0.25rem 0;
          }
          .chart svg {
            display: block;
            width: 100%;
            height: 10rem;
          }
          .axis {
            display: flex;
            justify-content: space-between;
            margin: 0;
            font-size: 0.875rem;
          }
          .filters {
            display: flex;
            flex-wrap: wrap;
            gap: 0 1rem;
            align-items: end;
          }
          button {
            margin-top: 1rem;
            padding: 0.5rem 1rem;
            font: inherit;
            border: 1px solid #111;
            border-radius: 4px;
            background: #f2f2f2;
            cursor: pointer;
          }
          :focus-visible {
            outline: 3px solid #1a5fb4;
            outline-offset: 2px;
          }
          .field-error {
            margin: 0.25rem 0;
            color: #a51d2d;
            font-weight: 600;
          }
          label.check {
            font-weight: normal;
          }
          .secret {
            overflow-wrap: anywhere;
            padding: 0.5rem;
            background: #f2f2f2;
          }
          .notice {
            padding: 0.75rem;
            border: 2px solid #a51d2d;
            border-radius: 4px;
          }
          nav {
            margin-bottom: 1.5rem;
          }
        </style>
        ${
          options.style
            ? html`<style>
                ${new Html(options.style)}
              </style>`
            : ''
        }
      </head>
      <body class="${options.wide ? 'wide' : ''}">
        <nav aria-label="Site">${nav}</nav>
        ${options.sections ? html`<nav aria-label="Sections">${options.sections}</nav>` : ''}
        <main>
          <h1>${options.title}</h1>
          ${options.notice ? html`<p class="notice" role="alert">${options.notice}</p>` : ''} ${body}
        </main>
      </body>
    </html> `.text;
}
