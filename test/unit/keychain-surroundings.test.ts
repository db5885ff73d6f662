import { describe, expect, it } from 'vitest';
import { type KeychainSurroundings, keychainCause, keychainCauseText } from '../../src/state/keychain-surroundings.js';

/** Linux surroundings with the files given existing, nothing else. */
const linux = (env: Record<string, string>, files: string[] = [], uid = 1000): KeychainSurroundings => ({ platform: 'linux', env, exists: (p) => files.includes(p), uid });

const NO_BUS = 'Cannot autolaunch D-Bus without X11 $DISPLAY';

describe('why the keychain cannot be reached, told from the error and the surroundings', () => {
  it('a host that passed on neither bus variable: both named, and where the bus is when it is at the usual place', () => {
    expect(keychainCause(NO_BUS, linux({}))).toEqual({ kind: 'no_session_bus' });
    expect(keychainCause(NO_BUS, linux({}, ['/run/user/1000/bus']))).toEqual({ kind: 'no_session_bus', socket: '/run/user/1000/bus' });
    const text = keychainCauseText({ kind: 'no_session_bus', socket: '/run/user/1000/bus' });
    expect(text).toContain('without DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR');
    expect(text).toContain('(it is at /run/user/1000/bus)');
    expect(text).toContain('env_vars = ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"] in ~/.codex/config.toml');
  });

  it('XDG_RUNTIME_DIR passed on, but no bus there and no DBUS_SESSION_BUS_ADDRESS: still the variables', () => {
    expect(keychainCause(NO_BUS, linux({ XDG_RUNTIME_DIR: '/run/user/1000' }))).toEqual({ kind: 'no_session_bus' });
  });

  it('a bus found either way is not blamed on the variables', () => {
    expect(keychainCause(NO_BUS, linux({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' }))).toBeUndefined();
    expect(keychainCause(NO_BUS, linux({ XDG_RUNTIME_DIR: '/run/user/1000' }, ['/run/user/1000/bus']))).toBeUndefined();
    expect(keychainCause('Cannot create an item in a locked collection', linux({ XDG_RUNTIME_DIR: '/run/user/1000' }, ['/run/user/1000/bus']))).toEqual({ kind: 'locked' });
  });

  it('a sandbox that forbids the connection, whatever the variables say', () => {
    const bus = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' };
    for (const reason of ['Could not connect: Operation not permitted', 'connect EPERM /run/user/1000/bus', 'Permission denied']) {
      expect(keychainCause(reason, linux(bus))).toEqual({ kind: 'sandboxed' });
    }
    expect(keychainCauseText({ kind: 'sandboxed' })).toMatch(/sandbox.*Operation not permitted.*outside the sandbox.*school mcp/s);
  });

  it('a locked keyring, and no Secret Service on the bus', () => {
    const bus = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' };
    expect(keychainCause('the keychain is locked or did not return what was written', linux(bus))).toEqual({ kind: 'locked' });
    expect(keychainCause('The name org.freedesktop.secrets was not provided by any .service files', linux(bus))).toEqual({ kind: 'no_secret_service' });
    expect(keychainCause('something else entirely', linux(bus))).toBeUndefined();
  });

  it('no bus variables mean nothing on macOS or Windows', () => {
    expect(keychainCause('The specified item could not be found in the keychain', { platform: 'darwin', env: {}, exists: () => false })).toBeUndefined();
    expect(keychainCause('Element not found', { platform: 'win32', env: {}, exists: () => false })).toBeUndefined();
  });
});
