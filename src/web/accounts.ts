import { requestBaseUrl } from './base-url.js';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { registerUser } from '../commands/user/execute.js';
import { newId } from '../domain/shared/ids.js';
import type { EventStore } from '../eventstore/port.js';
import {
  acceptTotpCode,
  beginTotp,
  consumeResetToken,
  createCredentials,
  credentialsByEmail,
  credentialsOf,
  EmailTaken,
  eraseIdentity,
  issueResetToken,
  openTotp,
  normalizeEmail,
  removeTotp,
  resetTokenUser,
  setPasswordHash,
  RESET_LINK_LIFETIME_MS,
  totpUri,
} from '../identity/credentials.js';
import { deleteAccount } from '../identity/deletion.js';
import { exportAccount } from '../identity/export.js';
import {
  hashPassword,
  needsRehash,
  passwordProblem,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  verifyPassword,
} from '../identity/passwords.js';
import type { Mailer } from '../infra/mail.js';
import type { Keyring } from '../secrets/vault.js';
import { csrfField, formOf, html, page, sendPage as send, type FormFields, type Html } from './page.js';
import { rateLimited } from './rate-limit.js';
import {
  csrfToken,
  currentSession,
  endSessionsOf,
  requireSignedIn,
  safeReturnPath,
  signedInUser,
  signIn,
  signOut,
  verifyCsrf,
  type WebApp,
} from './session.js';

// The seller's account pages (docs/decisions/091-seller-accounts.md): sign-up, sign-in with an
// optional TOTP step, sign-out, password change and reset, TOTP enrollment, data export and
// deletion. Every POST takes a CSRF token; every answer is no-store.

export interface AccountPagesDeps {
  db: Knex;
  store: EventStore;
  mail: Mailer;
  /** the secret vault's keys, which seal TOTP secrets; null (production without SECRETS_KEYS): the
   * second factor cannot be turned on */
  keyring: Keyring | null;
  /** e.g. https://mcp.example.com, for the links in mail; absent: the request's own origin */
  publicBaseUrl?: string | undefined;
  now?: () => Date;
}

/** The name UserRegistered carries for a seller who signed up: never their email (personal data stays out of the log). */
export const SIGNED_UP_USER_NAME = 'seller';

const query = (req: FastifyRequest): FormFields => (req.query ?? {}) as FormFields;

const passwordInput = (name: string, label: string, autocomplete: string) =>
  html`<label for="${name}">${label}</label>
    <input
      id="${name}"
      name="${name}"
      type="password"
      required
      autocomplete="${autocomplete}"
      maxlength="${PASSWORD_MAX_LENGTH * 4}"
    />`;
const newPasswordInput = (name = 'password', label = 'Password') =>
  html`<label for="${name}">${label}</label>
    <input
      id="${name}"
      name="${name}"
      type="password"
      required
      minlength="${PASSWORD_MIN_LENGTH}"
      maxlength="${PASSWORD_MAX_LENGTH * 4}"
      autocomplete="new-password"
      aria-describedby="${name}-rule"
    />
    <p id="${name}-rule">At least ${PASSWORD_MIN_LENGTH} characters; a passphrase of a few words is good.</p>`;
const emailInput = (value = '') =>
  html`<label for="email">Email</label>
    <input id="email" name="email" type="email" required autocomplete="email" value="${value}" />`;
const codeInput = html`<label for="code">Code from your authenticator app</label>
  <input
    id="code"
    name="code"
    type="text"
    inputmode="numeric"
    pattern="[0-9]{6}"
    required
    autocomplete="one-time-code"
  />`;

const postForm = (reply: FastifyReply, action: string, fields: Html, submit: string) =>
  html`<form method="post" action="${action}">
    ${csrfField(csrfToken(reply))}${fields}<button type="submit">${submit}</button>
  </form>`;

export function registerAccountPages<L extends FastifyBaseLogger>(app: WebApp<L>, deps: AccountPagesDeps): void {
  const now = deps.now ?? (() => new Date());
  const baseUrl = requestBaseUrl(deps.publicBaseUrl);

  const signUpForm = (reply: FastifyReply, email = '', notice?: string, status = 200) =>
    send(
      reply,
      page(
        { title: 'Sign up', notice },
        html`${postForm(reply, '/sign-up', html`${emailInput(email)}${newPasswordInput()}`, 'Create account')}
          <p>Have an account? <a href="/sign-in">Sign in</a>.</p>`,
      ),
      status,
    );

  app.get('/sign-up', (_req, reply) => signUpForm(reply));
  app.post('/sign-up', { preHandler: [rateLimited('signUp'), verifyCsrf] }, async (req, reply) => {
    const f = formOf(req);
    const email = normalizeEmail(f.email);
    if (!email) return signUpForm(reply, f.email ?? '', 'Enter an email address such as name@example.com.', 400);
    const problem = passwordProblem(f.password ?? '');
    if (problem) return signUpForm(reply, email, `The password is not accepted: ${problem}.`, 400);
    const userId = newId();
    try {
      await createCredentials(deps.db, { user_id: userId, email, password_hash: await hashPassword(f.password!) });
    } catch (err) {
      if (err instanceof EmailTaken)
        return signUpForm(reply, email, 'An account with this email exists: sign in, or reset its password.', 409);
      throw err;
    }
    try {
      await registerUser(
        { store: deps.store, metadata: { actor: { kind: 'user', id: userId } } },
        userId,
        SIGNED_UP_USER_NAME,
      );
    } catch (err) {
      // only the sign-in row exists yet: no user in the log to close, nothing else to undo
      await eraseIdentity(deps.db, userId);
      throw err;
    }
    await signIn(req, reply, userId);
    return reply.redirect('/account', 303);
  });

  const signInForm = (reply: FastifyReply, returnTo: string, email = '', notice?: string, status = 200) =>
    send(
      reply,
      page(
        { title: 'Sign in', notice },
        html`${postForm(
            reply,
            '/sign-in',
            html`<input type="hidden" name="return_to" value="${returnTo}" />${emailInput(email)}${passwordInput(
                'password',
                'Password',
                'current-password',
              )}`,
            'Sign in',
          )}
          <p><a href="/reset">Forgot your password?</a> · New here? <a href="/sign-up">Sign up</a>.</p>`,
      ),
      status,
    );

  app.get('/sign-in', async (req, reply) => {
    const returnTo = safeReturnPath(query(req).return_to);
    if (await signedInUser(req)) return reply.redirect(returnTo, 303);
    const notice = query(req).reset === 'done' ? 'Your password is set: sign in with it.' : undefined;
    return signInForm(reply, returnTo, '', notice);
  });
  app.post('/sign-in', { preHandler: [rateLimited('signIn'), verifyCsrf] }, async (req, reply) => {
    const f = formOf(req);
    const returnTo = safeReturnPath(f.return_to);
    const email = normalizeEmail(f.email);
    const row = email ? await credentialsByEmail(deps.db, email) : null;
    // no such account and a wrong password: the same check, the same answer
    if (!(await verifyPassword(f.password ?? '', row?.password_hash))) {
      return signInForm(reply, returnTo, f.email ?? '', 'The email or the password is wrong.', 401);
    }
    if (needsRehash(row!.password_hash!)) await setPasswordHash(deps.db, row!.user_id, await hashPassword(f.password!));
    if (row!.totp_secret) {
      await signIn(req, reply, row!.user_id, 'second_factor');
      return reply.redirect(`/sign-in/code?return_to=${encodeURIComponent(returnTo)}`, 303);
    }
    await signIn(req, reply, row!.user_id);
    return reply.redirect(returnTo, 303);
  });

  const codeForm = (reply: FastifyReply, returnTo: string, notice?: string, status = 200) =>
    send(
      reply,
      page(
        { title: 'Second factor', notice },
        postForm(
          reply,
          '/sign-in/code',
          html`<input type="hidden" name="return_to" value="${returnTo}" />${codeInput}`,
          'Continue',
        ),
      ),
      status,
    );
  const owesCode = async (req: FastifyRequest) => {
    const session = await currentSession(req);
    return session?.stage === 'second_factor' ? session.userId : null;
  };
  app.get('/sign-in/code', async (req, reply) => {
    if (!(await owesCode(req))) return reply.redirect('/sign-in', 303);
    return codeForm(reply, safeReturnPath(query(req).return_to));
  });
  app.post('/sign-in/code', { preHandler: [rateLimited('signIn'), verifyCsrf] }, async (req, reply) => {
    const f = formOf(req);
    const returnTo = safeReturnPath(f.return_to);
    const userId = await owesCode(req);
    if (!userId) return reply.redirect('/sign-in', 303);
    if (!deps.keyring || !(await acceptTotpCode(deps.db, deps.keyring, userId, f.code ?? '', now())))
      return codeForm(reply, returnTo, 'The code is wrong or was already used; enter the current one.', 401);
    await signIn(req, reply, userId);
    return reply.redirect(returnTo, 303);
  });

  app.post('/sign-out', { preHandler: verifyCsrf }, async (req, reply) => {
    await signOut(req, reply);
    return reply.redirect('/sign-in', 303);
  });

  const NOTICES: Record<string, string> = {
    password: 'Your password is changed; your other sessions are signed out.',
    totp: 'The second factor is on: sign-in now asks for a code.',
    'totp-removed': 'The second factor is off.',
  };
  const accountPage = async (req: FastifyRequest, reply: FastifyReply, notice?: string, status = 200) => {
    const { userId } = (await signedInUser(req))!;
    const me = (await credentialsOf(deps.db, userId))!;
    const totp = me.totp_secret
      ? postForm(
          reply,
          '/account/totp/remove',
          passwordInput('totp-password', 'Password', 'current-password'),
          'Turn off',
        )
      : postForm(reply, '/account/totp', html``, 'Set up an authenticator app');
    return send(
      reply,
      page(
        { title: 'Your account', notice: notice ?? NOTICES[query(req).done ?? ''], signedIn: true },
        html`<p>Signed in as <strong>${me.email}</strong>.</p>
          ${postForm(reply, '/sign-out', html``, 'Sign out')}
          <h2>Password</h2>
          ${postForm(
            reply,
            '/account/password',
            html`${passwordInput('current', 'Current password', 'current-password')}${newPasswordInput('password', 'New password')}`,
            'Change password',
          )}
          <h2>Second factor</h2>
          <p>${me.totp_secret ? 'On: sign-in asks for a code from your authenticator app.' : 'Off.'}</p>
          ${totp}
          <h2>Your data</h2>
          <p><a href="/account/export" download>Download your data (JSON)</a></p>
          <h2>Delete account</h2>
          <p>
            Deletes your sign-in data, ends your sessions, revokes your API tokens and disconnects your marketplace
            accounts. This cannot be undone.
          </p>
          ${postForm(
            reply,
            '/account/delete',
            html`${passwordInput('delete-password', 'Password', 'current-password')}`,
            'Delete my account',
          )}`,
      ),
      status,
    );
  };
  app.get('/account', { preHandler: requireSignedIn }, (req, reply) => accountPage(req, reply));

  /** the signed-in user, when `field` holds their password; else the account page says so */
  async function confirmedByPassword(req: FastifyRequest, field: string): Promise<string | null> {
    const { userId } = (await signedInUser(req))!;
    const me = await credentialsOf(deps.db, userId);
    return (await verifyPassword(formOf(req)[field] ?? '', me?.password_hash)) ? userId : null;
  }
  const wrongPassword = (req: FastifyRequest, reply: FastifyReply) =>
    accountPage(req, reply, 'The password is wrong.', 401);

  app.post('/account/password', { preHandler: [requireSignedIn, verifyCsrf] }, async (req, reply) => {
    const userId = await confirmedByPassword(req, 'current');
    if (!userId) return wrongPassword(req, reply);
    const problem = passwordProblem(formOf(req).password ?? '');
    if (problem) return accountPage(req, reply, `The new password is not accepted: ${problem}.`, 400);
    await setPasswordHash(deps.db, userId, await hashPassword(formOf(req).password!));
    await endSessionsOf(deps.db, userId, req);
    return reply.redirect('/account?done=password', 303);
  });

  const enrollPage = async (req: FastifyRequest, reply: FastifyReply, notice?: string, status = 200) => {
    const { userId } = (await signedInUser(req))!;
    const me = (await credentialsOf(deps.db, userId))!;
    if (!me.totp_pending || !deps.keyring) return reply.redirect('/account', 303);
    const key = openTotp(deps.keyring, userId, me.totp_pending);
    return send(
      reply,
      page(
        { title: 'Set up an authenticator app', notice, signedIn: true },
        html`<p>
            Add this key to your authenticator app (type it in, or open the link on the device that has the app), then
            enter the code it shows.
          </p>
          <p>Key: <code>${key.replace(/(.{4})/g, '$1 ').trim()}</code></p>
          <p><a href="${totpUri(key, me.email)}">Open in an authenticator app</a></p>
          ${postForm(reply, '/account/totp/confirm', codeInput, 'Turn on')}`,
      ),
      status,
    );
  };
  app.post('/account/totp', { preHandler: [requireSignedIn, verifyCsrf] }, async (req, reply) => {
    if (!deps.keyring)
      return accountPage(req, reply, 'A second factor cannot be turned on here: the service has no SECRETS_KEYS.', 503);
    await beginTotp(deps.db, deps.keyring, (await signedInUser(req))!.userId);
    return reply.redirect('/account/totp', 303);
  });
  app.get('/account/totp', { preHandler: requireSignedIn }, (req, reply) => enrollPage(req, reply));
  app.post('/account/totp/confirm', { preHandler: [requireSignedIn, verifyCsrf] }, async (req, reply) => {
    const { userId } = (await signedInUser(req))!;
    if (!deps.keyring || !(await acceptTotpCode(deps.db, deps.keyring, userId, formOf(req).code ?? '', now(), true)))
      return enrollPage(req, reply, 'The code is wrong; enter the one your app shows now.', 400);
    return reply.redirect('/account?done=totp', 303);
  });
  app.post('/account/totp/remove', { preHandler: [requireSignedIn, verifyCsrf] }, async (req, reply) => {
    const userId = await confirmedByPassword(req, 'totp-password');
    if (!userId) return wrongPassword(req, reply);
    await removeTotp(deps.db, userId);
    return reply.redirect('/account?done=totp-removed', 303);
  });

  app.get('/account/export', { preHandler: requireSignedIn }, async (req, reply) => {
    const { userId } = (await signedInUser(req))!;
    return reply
      .header('cache-control', 'no-store')
      .header('content-disposition', 'attachment; filename="account-export.json"')
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(await exportAccount(deps.db, userId), null, 2));
  });

  app.post('/account/delete', { preHandler: [requireSignedIn, verifyCsrf] }, async (req, reply) => {
    const userId = await confirmedByPassword(req, 'delete-password');
    if (!userId) return wrongPassword(req, reply);
    await deleteAccount({ db: deps.db, store: deps.store, userId });
    await signOut(req, reply);
    return send(reply, page({ title: 'Account deleted' }, html`<p>Your account and its sign-in data are deleted.</p>`));
  });

  // Password reset by a one-time link (docs/decisions/093-mail-and-reset-links.md)
  const resetRequestForm = (reply: FastifyReply, notice?: string) =>
    send(
      reply,
      page({ title: 'Reset your password', notice }, postForm(reply, '/reset', emailInput(), 'Send me a link')),
    );
  app.get('/reset', (_req, reply) => resetRequestForm(reply));
  app.post('/reset', { preHandler: [rateLimited('reset'), verifyCsrf] }, async (req, reply) => {
    const email = normalizeEmail(formOf(req).email);
    const row = email ? await credentialsByEmail(deps.db, email) : null;
    if (row) {
      const token = await issueResetToken(deps.db, row.user_id, now());
      const minutes = RESET_LINK_LIFETIME_MS / 60_000;
      await deps.mail.send({
        to: row.email,
        subject: 'Reset your password',
        text: `Someone (we hope you) asked to set a new password for this account. Open this link within ${minutes} minutes to set one; it works once:\n\n${baseUrl(req)}/reset/${token}\n\nIf it wasn't you, ignore this message: your password stays as it is.`,
      });
    }
    // the same answer whether or not the address has an account
    return resetRequestForm(reply, 'If an account has this address, a link to set a new password is on its way.');
  });

  const newPasswordForm = (reply: FastifyReply, token: string, notice?: string, status = 200) =>
    send(
      reply,
      page(
        { title: 'Set a new password', notice },
        postForm(
          reply,
          '/reset/password',
          html`<input type="hidden" name="token" value="${token}" />${newPasswordInput()}`,
          'Set password',
        ),
      ),
      status,
    );
  const deadLink = (reply: FastifyReply) =>
    send(
      reply,
      page(
        { title: 'Link no longer works' },
        html`<p>This link has expired or was used already. <a href="/reset">Ask for a new one</a>.</p>`,
      ),
      410,
    );
  // the token is in the path: this route's request lines stay out of the log, and no Referer carries it on
  app.get<{ Params: { token: string } }>('/reset/:token', { logLevel: 'warn' }, async (req, reply) => {
    reply.header('referrer-policy', 'no-referrer');
    if (!(await resetTokenUser(deps.db, req.params.token, now()))) return deadLink(reply);
    return newPasswordForm(reply, req.params.token);
  });
  app.post('/reset/password', { preHandler: [rateLimited('reset'), verifyCsrf] }, async (req, reply) => {
    const f = formOf(req);
    const token = f.token ?? '';
    const problem = passwordProblem(f.password ?? '');
    if (problem) return newPasswordForm(reply, token, `The password is not accepted: ${problem}.`, 400);
    const userId = await consumeResetToken(deps.db, token, now());
    if (!userId) return deadLink(reply);
    await setPasswordHash(deps.db, userId, await hashPassword(f.password!));
    await endSessionsOf(deps.db, userId);
    return reply.redirect('/sign-in?reset=done', 303);
  });
}
