import assert from 'node:assert/strict';
import bcrypt from 'bcrypt';
import { describe, test } from 'vitest';

// Issue 12 item 4: passwords moved from bcryptjs to bcrypt. Hashes stored before the move are in user events
// (SPEC 5.6: passwords verified with bcrypt) and must keep verifying.
describe('password hashes written by bcryptjs (SPEC 5.6)', () => {
  // Made by bcryptjs 3.0.3: hashSync('correct horse battery', 4).
  const BCRYPTJS_HASH = '$2b$04$f4qKuUgxYSgvW5vh.ZlrWeTVt.QXW.MJ1Yq9A6HiVcKMhp5mWDL1S';

  test('verify with bcrypt: the right password passes, another fails', async () => {
    assert.equal(await bcrypt.compare('correct horse battery', BCRYPTJS_HASH), true);
    assert.equal(await bcrypt.compare('correct horse batterY', BCRYPTJS_HASH), false);
  });

  test('the $2a$ spelling of the same hash verifies too (older bcryptjs wrote $2a$)', async () => {
    assert.equal(await bcrypt.compare('correct horse battery', `$2a$${BCRYPTJS_HASH.slice(4)}`), true);
  });
});
