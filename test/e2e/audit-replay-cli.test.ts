import assert from 'node:assert/strict';
import { test } from 'vitest';
import { createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { cliEnv as env, runCli as run } from '../support/cli.ts';
import { createTestDatabase } from '../support/databases.ts';
import { populateTransactions } from '../support/transaction-history.ts';

test('calebe audit replay: 0 differences on a fresh database, exit 1 and the difference after tampering', async () => {
  const db = await createTestDatabase();
  try {
    const e = env(db.url);
    const store = new PostgresEventStore(db.db, inlineProjections);
    const ids = await populateTransactions(
      { store, registry: createEventRegistry() },
      { count: 12, seed: 5 },
    );

    const clean = await run(['audit', 'replay', '--all'], e);
    assert.equal(clean.code, 0, clean.out);
    assert.match(clean.out, /^12 transaction streams checked, 0 differences$/m);

    const [id] = ids;
    assert.ok(id);
    const row = await db.db
      .selectFrom('transactions')
      .select(['reference'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await db.db.updateTable('transactions').set({ reference: 'tampered' }).where('id', '=', id).execute();

    const tampered = await run(['audit', 'replay', '--all'], e);
    assert.equal(tampered.code, 1, tampered.out);
    assert.ok(
      tampered.out.includes(`${id} reference: expected ${JSON.stringify(row.reference)}, actual "tampered"`),
      tampered.out,
    );
    assert.match(tampered.out, /^12 transaction streams checked, 1 differences$/m);

    const one = await run(['audit', 'replay', '--transaction', id], e);
    assert.equal(one.code, 1, one.out);
    assert.match(one.out, /^1 transaction streams checked, 1 differences$/m);
    const another = ids[1] ?? assert.fail();
    const fine = await run(['audit', 'replay', '--transaction', another], e);
    assert.equal(fine.code, 0, fine.out);

    for (const args of [
      ['audit'],
      ['audit', 'nope'],
      ['audit', 'replay', '--all', '--transaction', id],
      ['audit', 'replay', '--bogus'],
      ['audit', 'replay', '--transaction', 'not a txn'],
    ]) {
      const usage = await run(args, e);
      assert.equal(usage.code, 2, `${args.join(' ')}: ${usage.out}`);
    }
    const users = await db.db.selectFrom('users').select('id').execute();
    assert.equal(users.length, 0, 'a maintenance command never creates an administrator');
  } finally {
    await db.drop();
  }
});
