import { existsSync, mkdirSync, mkdtempSync, readdirSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { type LockFiles, newLockOwner, releaseLock, systemLockFiles, tryAcquire, withLock } from '../../src/state/lock.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'school-lock-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('named lock', () => {
  it('lets one holder in at a time and removes the lock afterwards', async () => {
    const dir = scratch();
    const events: string[] = [];
    const holder = (id: string) =>
      withLock(dir, 'refresh-default', undefined, async () => {
        events.push(`${id} in`);
        await sleep(30);
        events.push(`${id} out`);
        return id;
      });
    expect(await Promise.all([holder('a'), holder('b'), holder('c')])).toEqual(['a', 'b', 'c']);
    for (let i = 0; i < events.length; i += 2) expect(events[i + 1]).toBe(events[i].replace(' in', ' out'));
    expect(existsSync(join(dir, 'refresh-default.lock'))).toBe(false);
  });

  it('releases the lock when the work fails', async () => {
    const dir = scratch();
    await expect(withLock(dir, 'config', undefined, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(existsSync(join(dir, 'config.lock'))).toBe(false);
  });

  it('takes over a lock whose holder stopped refreshing it', async () => {
    const dir = scratch();
    const lock = join(dir, 'config.lock');
    mkdirSync(lock);
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(lock, longAgo, longAgo);
    expect(await withLock(dir, 'config', undefined, async () => 'got it', 1_000)).toBe('got it');
  });

  it('gives up on a live lock after the wait, naming the lock to remove', async () => {
    const dir = scratch();
    mkdirSync(join(dir, 'config.lock'));
    await expect(withLock(dir, 'config', undefined, async () => 'never', 200)).rejects.toThrow(/held the lock "config"[\s\S]*/);
    await expect(withLock(dir, 'config', undefined, async () => 'never', 200)).rejects.toMatchObject({ code: 'lock_timeout' });
  });

  it('stops waiting when interrupted', async () => {
    const dir = scratch();
    mkdirSync(join(dir, 'config.lock'));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(withLock(dir, 'config', controller.signal, async () => 'never')).rejects.toBeInstanceOf(InterruptedError);
  });
});

/**
 * Two waiters in one test process, each with its own owner name: `files` lets a test run one
 * waiter's whole attempt at the moment the other is about to make its first destructive step
 * (remove, unlink or rename something under the lock), the interleaving that crash recovery meets.
 */
describe('stale-lock takeover', () => {
  const LONG_AGO = new Date(Date.now() - 60_000);

  /** The file calls, with `before` run once, just before the `nth` call that removes anything in or at `lock`. */
  function pausedBeforeRemoval(lock: string, before: () => void, nth = 1): LockFiles {
    let removals = 0;
    const pause = (path: string) => {
      if (path !== lock && !path.startsWith(`${lock}/`)) return;
      if (++removals === nth) before();
    };
    return {
      ...systemLockFiles,
      unlink: (path) => (pause(path), systemLockFiles.unlink(path)),
      rmdir: (path) => (pause(path), systemLockFiles.rmdir(path)),
      removeTree: (path) => (pause(path), systemLockFiles.removeTree(path)),
    };
  }

  /** A lock whose holder died a minute ago (so that both waiters find it stale). */
  function deadHoldersLock(): { dir: string; lock: string } {
    const dir = scratch();
    const lock = join(dir, 'refresh-default.lock');
    const dead = newLockOwner();
    expect(tryAcquire(lock, dead)).toBe(true);
    for (const entry of readdirSync(lock)) utimesSync(join(lock, entry), LONG_AGO, LONG_AGO);
    utimesSync(lock, LONG_AGO, LONG_AGO);
    return { dir, lock };
  }

  it('lets only one of two waiters that both found the lock stale take it', () => {
    const { lock } = deadHoldersLock();
    const first = newLockOwner();
    const second = newLockOwner();
    let firstTook: boolean | undefined;
    // The second waiter has seen the dead holder's old mtime; before it acts, the first takes over.
    const secondFiles = pausedBeforeRemoval(lock, () => {
      firstTook = tryAcquire(lock, first);
    });
    const secondTook = tryAcquire(lock, second, secondFiles);
    expect(firstTook).toBe(true);
    expect(secondTook).toBe(false);
    // The lock is the first waiter's still: releasing it as the second changes nothing.
    releaseLock(lock, second);
    expect(tryAcquire(lock, newLockOwner())).toBe(false);
    releaseLock(lock, first);
    expect(existsSync(lock)).toBe(false);
  });

  it.each([1, 2])('gives the lock to exactly one waiter when the other runs through before its removal number %i', (nth) => {
    // The first waiter is paused at each of its removals in turn (the takeover, then emptying the dir); the second runs through.
    const { lock } = deadHoldersLock();
    const first = newLockOwner();
    const second = newLockOwner();
    let secondTook: boolean | undefined;
    const firstTook = tryAcquire(
      lock,
      first,
      pausedBeforeRemoval(lock, () => (secondTook = tryAcquire(lock, second)), nth),
    );
    secondTook ??= tryAcquire(lock, second);
    expect([firstTook, secondTook].filter(Boolean)).toHaveLength(1);
    // The dir holds the winner's file alone, so that the other's release cannot undo it.
    expect(readdirSync(lock)).toEqual([firstTook ? first : second]);
  });

  it("does not let a holder that was taken over for stale remove the new holder's lock when it finishes", () => {
    const dir = scratch();
    const lock = join(dir, 'config.lock');
    const slow = newLockOwner();
    expect(tryAcquire(lock, slow)).toBe(true);
    // The slow holder stopped refreshing (suspended laptop); another process takes over.
    for (const entry of readdirSync(lock)) utimesSync(join(lock, entry), LONG_AGO, LONG_AGO);
    utimesSync(lock, LONG_AGO, LONG_AGO);
    const next = newLockOwner();
    expect(tryAcquire(lock, next)).toBe(true);
    releaseLock(lock, slow);
    expect(tryAcquire(lock, newLockOwner())).toBe(false);
  });
});
