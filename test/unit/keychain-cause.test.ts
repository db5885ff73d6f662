import { describe, expect, it } from 'vitest';
import { doctorCommand } from '../../src/commands/doctor/doctor.js';
import { diagnose } from '../../src/doctor/diagnose.js';
import { type BuildMachine, MODULE_MISSING, MODULE_UNBUILT, explainKeychain, keychainCause, missingForBuild } from '../../src/state/keychain-cause.js';
import { type KeychainCondition, fakeDeps } from '../helpers/fake-deps.js';

/** A Linux machine holding exactly the files given (programs under /usr/bin). */
function machine(files: string[], env: Record<string, string> = {}): BuildMachine {
  const have = new Set(files);
  return { platform: 'linux', env: { PATH: '/usr/local/bin:/usr/bin', ...env }, nodeVersion: '20.20.2', home: '/home/ada', exists: (p) => have.has(p) };
}

const TOOLS = ['/usr/bin/g++', '/usr/bin/make', '/usr/bin/python3'];
const LIBSECRET_HEADERS = '/usr/include/libsecret-1/libsecret/secret.h';
const DISTRO_NODE_HEADERS = '/usr/include/node/node.h';

describe('why the keychain cannot be used', () => {
  it('tells each cause apart by the reason the probe gives', () => {
    expect(keychainCause(MODULE_MISSING)).toBe('module_missing');
    expect(keychainCause(MODULE_UNBUILT)).toBe('module_unbuilt');
    expect(keychainCause('the keychain module could not be loaded (libsecret-1.so.0: cannot open shared object file: No such file or directory)')).toBe('libsecret_missing');
    expect(keychainCause("the keychain module could not be loaded (The module '…/keytar.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115)")).toBe(
      'module_other_node',
    );
    expect(keychainCause('Cannot autolaunch D-Bus without X11 $DISPLAY')).toBe('no_session_bus');
    expect(keychainCause('Could not connect: No such file or directory')).toBe('no_session_bus');
    expect(keychainCause('The name org.freedesktop.secrets was not provided by any .service files')).toBe('no_keychain_service');
    expect(keychainCause('the keychain is locked or did not return what was written')).toBe('locked');
    expect(keychainCause('something else')).toBe('other');
  });

  it('says what a build of the module lacks on this machine, and what gives each', () => {
    expect(missingForBuild(machine([...TOOLS, LIBSECRET_HEADERS, DISTRO_NODE_HEADERS], { npm_config_nodedir: '/usr' }))).toEqual({ missing: [], remedies: [] });
    // Node's headers: neither npm_config_nodedir nor node-gyp's download cache; the distribution's are there.
    const noHeaders = missingForBuild(machine([...TOOLS, LIBSECRET_HEADERS, DISTRO_NODE_HEADERS]));
    expect(noHeaders.missing).toEqual([expect.stringMatching(/^Node's headers \(node-gyp downloads them from nodejs\.org/)]);
    expect(noHeaders.remedies).toEqual(['npm_config_nodedir=/usr']);
    // node-gyp's cache of this Node version counts.
    expect(missingForBuild(machine([...TOOLS, LIBSECRET_HEADERS, '/home/ada/.cache/node-gyp/20.20.2/include/node/node.h'])).missing).toEqual([]);
    expect(missingForBuild(machine([...TOOLS, LIBSECRET_HEADERS, '/home/ada/.cache/node-gyp/18.0.0/include/node/node.h'])).missing).toHaveLength(1);
    // Nothing at all.
    const bare = missingForBuild(machine([]));
    expect(bare.missing).toEqual([expect.stringContaining("Node's headers"), "libsecret's headers", 'a C++ compiler and make', 'python3']);
    expect(bare.remedies[0]).toBe('apt-get install libsecret-1-dev build-essential python3');
    expect(bare.remedies[1]).toMatch(/^npm_config_nodedir=<a folder holding Node's headers/);
  });

  it('explains a module npm dropped: why it could not be built, and the commands that build it', () => {
    const explained = explainKeychain(MODULE_MISSING, machine([...TOOLS, DISTRO_NODE_HEADERS]));
    expect(explained.cause).toBe('module_missing');
    expect(explained.problem).toBe(
      "the keychain module (keytar) could not be built when school was installed: no prebuilt binary could be downloaded, and this machine lacks Node's headers (node-gyp downloads them from nodejs.org, which this network may not reach), libsecret's headers to build one",
    );
    expect(explained.fix).toBe('Build it: apt-get install libsecret-1-dev, then npm_config_nodedir=/usr npm install -g ./school-0.1.0.tgz.');
    // With everything there, the build failed for another reason: the flag that shows it.
    const equipped = explainKeychain(MODULE_MISSING, machine([...TOOLS, LIBSECRET_HEADERS, DISTRO_NODE_HEADERS], { npm_config_nodedir: '/usr' }));
    expect(equipped.problem).toMatch(/--foreground-scripts/);
    expect(equipped.fix).toBe('Build it: npm install -g ./school-0.1.0.tgz.');
  });

  it('gives each other cause its own fix, never one of another', () => {
    const fixes = {
      module_unbuilt: explainKeychain(MODULE_UNBUILT, machine([])).fix,
      libsecret_missing: explainKeychain('the keychain module could not be loaded (libsecret-1.so.0: cannot open shared object file)', machine([])).fix,
      no_session_bus: explainKeychain('Cannot autolaunch D-Bus without X11 $DISPLAY', machine([])).fix,
      locked: explainKeychain('the keychain is locked', machine([])).fix,
    };
    expect(fixes.module_unbuilt).toContain('--allow-scripts=keytar');
    expect(fixes.libsecret_missing).toContain('apt-get install libsecret-1-0');
    expect(fixes.no_session_bus).toContain('dbus-run-session');
    expect(fixes.locked).toMatch(/^The keyring is locked: unlock it/);
    expect(new Set(Object.values(fixes)).size).toBe(4);
    for (const fix of Object.values(fixes)) expect(fix).not.toMatch(/libsecret-1-dev/);
  });
});

describe('school doctor on a keychain that cannot be used', () => {
  const keychainOf = async (condition: KeychainCondition) => {
    const deps = fakeDeps({ keychain: condition });
    const findings = await diagnose(deps, { env: deps.env });
    return findings.find((f) => f.check === 'keychain');
  };

  it('tells a missing module apart from a missing libsecret and a missing D-Bus session', async () => {
    const module = await keychainOf('no-module');
    expect(module).toMatchObject({ status: 'warning', data: { cause: 'module_missing' } });
    expect(module?.message).toMatch(/^The OS keychain cannot be used \(the keychain module \(keytar\) could not be built when school was installed: no prebuilt binary/);
    expect(module?.fix).toMatch(/^Build it: .*npm install -g \.\/school-0\.1\.0\.tgz; in CI/);
    const libsecret = await keychainOf('no-libsecret');
    expect(libsecret).toMatchObject({ data: { cause: 'libsecret_missing' }, fix: expect.stringMatching(/^Install libsecret: apt-get install libsecret-1-0; /) });
    const bus = await keychainOf('missing');
    expect(bus).toMatchObject({ data: { cause: 'no_session_bus' }, message: expect.stringContaining('no D-Bus session bus') });
    expect(bus?.fix).not.toMatch(/libsecret|npm install/);
    const unbuilt = await keychainOf('unbuilt-module');
    expect(unbuilt).toMatchObject({ data: { cause: 'module_unbuilt' }, fix: expect.stringContaining('--allow-scripts=keytar') });
  });

  it('prints the cause and the fix in its report', async () => {
    const deps = fakeDeps({ keychain: 'no-module' });
    await doctorCommand.execute(() => deps, {}, []).catch(() => undefined);
    expect(deps.io.stdout()).toMatch(/could not be built when school was installed/);
    expect(deps.io.stdout()).toMatch(/Build it: /);
  });
});
