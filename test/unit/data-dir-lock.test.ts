import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, test } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from '../../src/db/data-dir-lock.ts';

// Issue 12 item 5 (2): the embedded data directory is held by one process at a time.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'calebe-lock-unit-'));
  dirs.push(d);
  return d;
}

function deadPid(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.on('exit', () => resolve(child.pid ?? 0));
  });
}

test('the lock names its holder; a second taker gets DataDirLockedError; release removes it', () => {
  const d = dir();
  const release = lockDataDir(d, 'calebe serve');
  const holder = JSON.parse(readFileSync(join(d, LOCK_FILE), 'utf8'));
  assert.equal(holder.pid, process.pid);
  assert.equal(holder.command, 'calebe serve');
  assert.throws(
    () => lockDataDir(d, 'calebe bootstrap'),
    (e: unknown) =>
      e instanceof DataDirLockedError &&
      e.message.startsWith(
        `the embedded database in ${d} is in use by \`calebe serve\` (pid ${process.pid}`,
      ) &&
      e.message.endsWith('stop it first, or set DATABASE_URL'),
  );
  release();
  assert.ok(!existsSync(join(d, LOCK_FILE)));
  lockDataDir(d, 'calebe bootstrap')();
});

test('a lock of a dead pid, or an unreadable one, is taken over', async () => {
  for (const content of [
    JSON.stringify({ pid: await deadPid(), command: 'calebe serve', started_at: 'x' }),
    '{"pid":',
  ]) {
    const d = dir();
    writeFileSync(join(d, LOCK_FILE), content);
    const release = lockDataDir(d, 'calebe migrate');
    assert.equal(JSON.parse(readFileSync(join(d, LOCK_FILE), 'utf8')).command, 'calebe migrate');
    release();
  }
});

test('release never removes a lock another process holds now', () => {
  const d = dir();
  const release = lockDataDir(d, 'calebe serve');
  const other = JSON.stringify({ pid: process.ppid, command: 'calebe serve', started_at: 'y' });
  writeFileSync(join(d, LOCK_FILE), other);
  release();
  assert.equal(readFileSync(join(d, LOCK_FILE), 'utf8'), other);
});
