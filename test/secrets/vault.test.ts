import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createDb, type Knex } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import {
  createVault,
  DERIVED_KEY_ID,
  eraseSecrets,
  keyringFrom,
  migrateSecrets,
  parseKeyring,
} from '../../src/secrets/vault.js';
import { cli } from '../support/processes.js';

// The vault against the real database: what is stored is not the secret, it opens with any
// configured key, `secrets rotate` (the real CLI) re-seals it under the current key, and a
// ciphertext moved to another row does not open.

describe('secret vault (AES-256-GCM, key ids, rotation)', () => {
  let db: Knex;
  const key = () => randomBytes(32).toString('base64');
  const k1 = `k1:${key()}`;
  const k2 = `k2:${key()}`;
  const token = 'Atzr|a-refresh-token-that-must-stay-secret';
  const rows = (reference: string) =>
    db.withSchema('secrets').table('marketplace_credentials').where({ reference }).select('*');

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await migrate(db, [migrateSecrets]);
  });
  after(() => db.destroy());

  it('stores a ciphertext that is not the token, and opens it again', async () => {
    const vault = createVault(db, parseKeyring(k1));
    await vault.put('vault:a', 'selling', token, 'A1SELLER');
    const [row] = await rows('vault:a');
    expect(row.key_id).to.equal('k1');
    expect(Buffer.from(row.ciphertext).toString('utf8')).to.not.include('Atzr');
    expect(Buffer.from(row.ciphertext).equals(Buffer.from(token))).to.equal(false);
    expect(await vault.credentials('vault:a')).to.deep.equal({
      selling_refresh_token: token,
      selling_partner_id: 'A1SELLER',
    });
    expect(await vault.credentials('vault:none')).to.equal(undefined);
  });

  it('`secrets rotate` re-seals every secret under the first key; the old key is then not needed', async () => {
    await createVault(db, parseKeyring(k1)).put('vault:b', 'ads', token);
    const env = { DATABASE_URL: process.env.DATABASE_URL!, SECRETS_KEYS: `${k2},${k1}` };
    const out = await cli(['secrets', 'rotate'], env);
    expect(out).to.match(/re-sealed \d+ secret\(s\) under key k2/);
    expect((await rows('vault:b'))[0].key_id).to.equal('k2');
    expect(await createVault(db, parseKeyring(k2)).credentials('vault:b')).to.deep.equal({ ads_refresh_token: token });
    // nothing left to re-seal
    expect(await cli(['secrets', 'rotate'], env)).to.include('re-sealed 0 secret(s)');
    const withoutK2 = createVault(db, parseKeyring(k1));
    const refused = await withoutK2.credentials('vault:b').catch((err: Error) => err);
    expect(refused).to.be.instanceOf(Error).with.property('message').that.includes('key k2 is not in SECRETS_KEYS');
  });

  it('a ciphertext copied to another reference does not open there', async () => {
    const vault = createVault(db, parseKeyring(k1));
    await vault.put('vault:c', 'selling', token);
    const [row] = await rows('vault:c');
    await db
      .withSchema('secrets')
      .table('marketplace_credentials')
      .insert({ ...row, reference: 'vault:d' });
    expect(await vault.credentials('vault:d').catch((err: Error) => err)).to.be.instanceOf(Error);
  });

  it('erases a reference without needing a key', async () => {
    await createVault(db, parseKeyring(k1)).put('vault:e', 'selling', token);
    expect(await eraseSecrets(db, 'vault:e')).to.equal(1);
    expect(await rows('vault:e')).to.deep.equal([]);
  });

  it('keys: malformed ones are refused; unset, a derived key outside production and none in production', () => {
    expect(() => parseKeyring('k1:c2hvcnQ=')).to.throw('key k1 is 5 bytes; AES-256 needs 32');
    expect(() => parseKeyring(`${k1},${k1}`)).to.throw('appears twice');
    expect(() => parseKeyring(`:${key()}`)).to.throw('is not <id>:<base64 key>');
    const derived = keyringFrom({ NODE_ENV: 'development', INGESTION_SECRET: 's' });
    expect(derived?.current.id).to.equal(DERIVED_KEY_ID);
    expect(keyringFrom({ NODE_ENV: 'development', INGESTION_SECRET: 's' })?.current.key).to.deep.equal(
      derived?.current.key,
    );
    expect(keyringFrom({ NODE_ENV: 'production', INGESTION_SECRET: 's' })).to.equal(null);
    expect(keyringFrom({ NODE_ENV: 'production', INGESTION_SECRET: 's', SECRETS_KEYS: k2 })?.current.id).to.equal('k2');
  });
});
