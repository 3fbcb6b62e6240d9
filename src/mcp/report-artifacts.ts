import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawServerDefault } from 'fastify';
import { readArtifact } from '../commands/report/artifacts.js';
import { UUID_PATTERN } from '../domain/shared/ids.js';
import type { Knex } from '../infra/db.js';
import { loadAccounts } from '../projections/accounts/queries.js';
import { findReport } from '../projections/reports/queries.js';
import { missingScopes, READ_SCOPE } from '../domain/user/scopes.js';
import { type Authenticate, bearerToken, refuseScope, refuseToken } from './auth.js';

// GET /reports/<mutation id>/artifact (spec 5.3: get_operation_result's download_path): the whole
// stored artifact, to the bearer of an MCP token of a user whose account the receipt is on, the
// same token and scope checks the export URLs make. Another user's receipt reads as missing.

export function registerReportArtifactRoute<L extends FastifyBaseLogger>(
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, L>,
  deps: { db: Knex; authenticate: Authenticate; baseUrl: (req: FastifyRequest) => string; now: () => Date },
): void {
  app.get<{ Params: { id: string } }>('/reports/:id/artifact', async (req, reply) => {
    const token = bearerToken(req.headers.authorization);
    const user = token ? await deps.authenticate(token) : null;
    if (!user)
      return refuseToken(reply, deps.baseUrl(req), {
        tokenGiven: token !== undefined,
        needed: "a report artifact needs the MCP bearer token of the receipt's owner",
      });
    const lacking = missingScopes(user.scopes, [READ_SCOPE]);
    if (lacking.length) return refuseScope(reply, deps.baseUrl(req), { lacking, scope: READ_SCOPE });
    const id = req.params.id.toLowerCase();
    const accounts = (await loadAccounts(deps.db, user.userId)).map((a) => a.id);
    const receipt = UUID_PATTERN.test(id) ? await findReport(deps.db, accounts, id) : null;
    const artifact = receipt?.artifact ? await readArtifact(deps.db, id, deps.now()) : null;
    if (!artifact)
      return reply
        .code(404)
        .send({ error: 'not_found', error_description: 'no stored artifact of yours has that id, or it expired' });
    return reply
      .header('cache-control', 'private, no-store')
      .header('content-disposition', `attachment; filename="report-${id.slice(0, 8)}"`)
      .header('x-checksum', receipt!.artifact!.checksum)
      .type(artifact.media_type)
      .send(artifact.bytes);
  });
}
