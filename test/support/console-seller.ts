import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { credentialsByEmail } from '../../src/identity/credentials.js';
import { createDb, type Knex } from '../../src/infra/db.js';
import { Browser } from '../web/browser.js';
import { call } from './mcp.js';
import { cli, eventually } from './processes.js';
import { connectMcp, simulatorUrl, startOwnService, type OwnService } from './service.js';

// A seller of the console on a service of its own (`npm start`): signed up on the pages, their
// simulator seller account connected by the operator CLI, and an MCP client of theirs (a token
// the CLI made) for what the console does not do, such as creating automations.

export const SELLER_PASSWORD = 'ample meadow lantern';

export interface ConsoleSeller {
  own: OwnService;
  simulator: string;
  db: Knex;
  email: string;
  userId: string;
  account: string;
  /** an HTTP client signed in as the seller */
  browser: Browser;
  client: Client;
  /** a tool's answer through the seller's MCP client; fails the test on a tool error */
  tool(name: string, args: Record<string, unknown>): Promise<Record<string, any>>;
  /** waits until the account's stream of this event type is active (an automation live on it) */
  streamActive(streamType: string): Promise<void>;
  /** has the simulator raise an event of this type about one of the seller's listings */
  raise(type: string, listing: { sku: string; marketplaceId: string }): Promise<void>;
  stop(): Promise<void>;
}

export async function startConsoleSeller(name: string, env: Record<string, string> = {}): Promise<ConsoleSeller> {
  const own = await startOwnService(name, env);
  const db = createDb(own.env.DATABASE_URL!);
  try {
    const simulator = await simulatorUrl(own.service);
    const email = `${name}.${Date.now()}@example.com`;
    const browser = new Browser(own.base);
    const signedUp = await browser.submit('/sign-up', '/sign-up', { email, password: SELLER_PASSWORD });
    if (signedUp.status !== 303) throw new Error(`sign-up answered ${signedUp.status}`);
    const userId = (await credentialsByEmail(db, email))!.user_id;
    const account = (await cli(['accounts', 'connect', '--user', userId], own.env)).trim();
    const token = /token \(shown once\): (\S+)/.exec(await cli(['tokens', 'create', '--user', userId], own.env))![1]!;
    const client = await connectMcp(`${own.base}/mcp`, token);
    const tool = async (tool: string, args: Record<string, unknown>) => {
      const out = await call(client, tool, args);
      if (out.isError) throw new Error(`${tool}: ${JSON.stringify(out.structuredContent)}`);
      return out.structuredContent;
    };
    await eventually(
      async () =>
        ((await tool('connection_status', {})).accounts as Array<{ id: string }>).some((a) => a.id === account) ||
        undefined,
      "the seller's account to be connected",
      120_000,
    );
    return {
      own,
      simulator,
      db,
      email,
      userId,
      account,
      browser,
      client,
      tool,
      async streamActive(streamType) {
        await eventually(
          async () =>
            ((await tool('list_streams', { account })).streams as Array<{ stream_type: string; status: string }>).find(
              (r) => r.stream_type === streamType && r.status === 'active',
            ),
          `${streamType} to be active`,
          120_000,
        );
      },
      async raise(type, listing) {
        const raised = await fetch(`${simulator}/_sim/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type, ...listing }),
        });
        if (raised.status !== 202) throw new Error(`the simulator raised no ${type}: ${await raised.text()}`);
      },
      async stop() {
        await client.close();
        await db.destroy();
        await own.stop();
      },
    };
  } catch (err) {
    await db.destroy();
    await own.stop();
    throw err;
  }
}
