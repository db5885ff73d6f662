import { existsSync, mkdirSync, mkdtempSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { withLock } from '../../src/state/lock.js';

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
    await expect(withLock(dir, 'config', undefined, async () => 'never', 200)).rejects.toThrow(/held the lock "config"[^]*/);
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
