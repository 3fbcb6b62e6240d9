import { parseArgs } from 'node:util';
import type { CommandContext } from './commands/shared/handler.js';
import { setOperatorRole } from './commands/user/execute.js';
import type { Position } from './eventstore/port.js';
import { credentialsByEmail, credentialsOf, normalizeEmail } from './identity/credentials.js';
import type { Knex } from './infra/db.js';
import { authProjection } from './projections/auth/projection.js';
import { listOperators } from './projections/auth/queries.js';
import type { Projection } from './projections/projection.js';
import { UsageError } from './projections/rebuild-command.js';

// `npm run cli -- operators …` (docs/decisions/161-operator-role.md): the operator role lets a
// user switch the operator's pauses on the console's Settings. Sign-up verifies no address, so
// the role is granted to an existing user by whoever runs the CLI, never claimed by an email.

export const OPERATORS_USAGE = `  operators grant --email <email> | operators revoke --email <email>
                                              let the user who signs in with that address pause or
                                              allow new marketplace write requests in the console's
                                              Settings (or no longer)
  operators list                              the users holding the operator role`;

export interface OperatorsCliDeps {
  db: Knex;
  ctx: CommandContext;
  /** who grants or revokes, as the log keeps it */
  by: string;
  /** waits until these projections have applied the position (null: nothing to wait for; undefined: the log's head) */
  project(position: Position | null | undefined, projections: Projection[]): Promise<void>;
  print(line: string): void;
}

/** The user who signs in with `--email`, else a usage error. */
async function userByEmail(db: Knex, args: string[]): Promise<{ user_id: string; email: string }> {
  const { values } = parseArgs({ args, options: { email: { type: 'string' } }, strict: true });
  if (!values.email) throw new UsageError(`--email is required\nusage:\n${OPERATORS_USAGE}`);
  const email = normalizeEmail(values.email);
  if (!email) throw new UsageError(`--email: '${values.email}' is not an email address`);
  const found = await credentialsByEmail(db, email);
  if (!found) throw new UsageError(`--email: no user signs in with ${email}`);
  return { user_id: found.user_id, email };
}

export async function runOperatorsCommand(
  action: string | undefined,
  args: string[],
  deps: OperatorsCliDeps,
): Promise<void> {
  if (action === 'grant' || action === 'revoke') {
    const { user_id, email } = await userByEmail(deps.db, args);
    const position = await setOperatorRole(deps.ctx, user_id, action === 'grant', deps.by);
    // the console knows the role the moment the command returns, running service or not
    await deps.project(position, [authProjection]);
    const outcome =
      action === 'grant'
        ? `is an operator ${position ? 'now' : 'already'}`
        : position
          ? 'is no operator now'
          : 'was no operator';
    deps.print(`${email} (user ${user_id}) ${outcome}`);
    return;
  }
  if (action !== 'list' || args.length) throw new UsageError(`usage:\n${OPERATORS_USAGE}`);
  await deps.project(undefined, [authProjection]);
  const operators = await listOperators(deps.db);
  if (operators.length === 0) deps.print('no operators');
  for (const user_id of operators)
    deps.print(`${user_id}  ${(await credentialsOf(deps.db, user_id))?.email ?? '(no sign-in address)'}`);
}
