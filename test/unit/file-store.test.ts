import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/state/file-store.js';

describe('file credential store', () => {
  it('writes a 0600 file atomically and reads it back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'school-fs-'));
    const path = join(dir, 'sub', 'credentials.json');
    const store = openFileStore(path, join(dir, 'locks'));
    await store.set('profile:a', 'secret-a');
    await store.set('profile:b', 'secret-b');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await store.get('profile:a')).toBe('secret-a');
    expect(await store.delete('profile:a')).toBe(true);
    expect(await store.delete('profile:a')).toBe(false);
    expect(await store.get('profile:a')).toBeNull();
    expect(JSON.parse(readFileSync(path, 'utf8')).entries).toEqual({ 'profile:b': 'secret-b' });
  });

  it('keeps every write when several run at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'school-fs-'));
    const store = openFileStore(join(dir, 'c.json'), join(dir, 'locks'));
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.set(`k${i}`, `v${i}`)));
    for (let i = 0; i < 10; i++) expect(await store.get(`k${i}`)).toBe(`v${i}`);
  });

  it('reports a corrupted file clearly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'school-fs-'));
    const path = join(dir, 'c.json');
    writeFileSync(path, '{oops');
    await expect(openFileStore(path, join(dir, 'l')).get('x')).rejects.toThrow(/is corrupted/);
  });
});
