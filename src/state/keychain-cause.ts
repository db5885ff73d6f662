// Why the OS keychain cannot be used, told apart by what is missing: the keychain module itself
// (npm drops an optional dependency it could not build, without a word), the module's binary (its
// build script held back), the libsecret library it links to, a D-Bus session, a keychain service
// on it, or an unlocked keyring. Each has another fix, and a fix for the wrong one (install
// libsecret, when libsecret is there and Node's headers are not) sends a person in circles.

import { type KeychainCause as SurroundingCause, keychainCause as surroundingCause, keychainCauseText } from './keychain-surroundings.js';

export type KeychainCause = 'module_missing' | 'module_unbuilt' | 'module_other_node' | 'libsecret_missing' | 'no_session_bus' | 'sandboxed' | 'no_keychain_service' | 'locked' | 'other';

/** The machine as far as building the keychain module goes: read by the caller, given here. */
export interface BuildMachine {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  /** The Node version the module must be built for (process.versions.node). */
  nodeVersion: string;
  home: string;
  exists(path: string): boolean;
  /** The user's id, for the usual runtime directory of the session bus. */
  uid?: number;
}

export interface KeychainExplanation {
  cause: KeychainCause;
  /** What is wrong, in one clause a sentence can hold. */
  problem: string;
  /** How to fix it, when a command or a step does. */
  fix?: string;
}

/** The problem reported when the keychain module is absent (see loadKeytar in keychain.ts). */
export const MODULE_MISSING = 'the keychain module (keytar) is not installed';
/** The problem reported when the module is there without its compiled binary. */
export const MODULE_UNBUILT = 'the keychain module (keytar) is installed but was never built';

/** The cause of a keychain probe's failure, from its reason. */
export function keychainCause(reason: string): KeychainCause {
  if (reason.includes(MODULE_MISSING)) return 'module_missing';
  if (reason.includes(MODULE_UNBUILT)) return 'module_unbuilt';
  if (/NODE_MODULE_VERSION|compiled against a different Node/i.test(reason)) return 'module_other_node';
  if (/libsecret[^ ]*\.so/i.test(reason)) return 'libsecret_missing';
  if (/autolaunch D-Bus|DBUS_SESSION_BUS_ADDRESS|Could not connect|session bus|dbus-launch/i.test(reason)) return 'no_session_bus';
  if (/org\.freedesktop\.secrets|ServiceUnknown|not provided by any \.service/i.test(reason)) return 'no_keychain_service';
  if (/locked/i.test(reason)) return 'locked';
  return 'other';
}

/** The programs on the PATH, as a shell would find them. */
function onPath(machine: BuildMachine, program: string): boolean {
  const dirs = (machine.env.PATH ?? '').split(machine.platform === 'win32' ? ';' : ':').filter(Boolean);
  return dirs.some((dir) => machine.exists(`${dir}/${program}`));
}

/** Node's headers where node-gyp would take them: npm_config_nodedir, or its own download cache. */
function nodeHeaders(machine: BuildMachine): boolean {
  const nodedir = machine.env.npm_config_nodedir ?? machine.env.NPM_CONFIG_NODEDIR;
  if (nodedir) return machine.exists(`${nodedir}/include/node/node.h`);
  const cache = machine.env.npm_config_devdir ?? `${machine.env.XDG_CACHE_HOME ?? `${machine.home}/.cache`}/node-gyp`;
  return machine.exists(`${cache}/${machine.nodeVersion}/include/node/node.h`);
}

/**
 * What the keychain module needs to be built from source on this machine and lacks, with the
 * package or setting that gives each (Debian and Ubuntu names): the reason npm could not build it.
 */
export function missingForBuild(machine: BuildMachine): { missing: string[]; remedies: string[] } {
  const missing: string[] = [];
  const packages: string[] = [];
  const remedies: string[] = [];
  if (!nodeHeaders(machine)) {
    missing.push("Node's headers (node-gyp downloads them from nodejs.org, which this network may not reach)");
    // A distribution's Node ships its headers under /usr/include/node: npm_config_nodedir points node-gyp there.
    if (machine.exists('/usr/include/node/node.h')) remedies.push('npm_config_nodedir=/usr');
    else remedies.push("npm_config_nodedir=<a folder holding Node's headers, include/node/node.h> (the nodejs headers tarball of your version)");
  }
  if (machine.platform === 'linux') {
    if (!machine.exists('/usr/include/libsecret-1/libsecret/secret.h')) {
      missing.push("libsecret's headers");
      packages.push('libsecret-1-dev');
    }
    const compiler = ['c++', 'g++', 'clang++'].some((p) => onPath(machine, p));
    if (!compiler || !onPath(machine, 'make')) {
      missing.push('a C++ compiler and make');
      packages.push('build-essential');
    }
    if (!onPath(machine, 'python3')) {
      missing.push('python3');
      packages.push('python3');
    }
  }
  if (packages.length) remedies.unshift(`apt-get install ${packages.join(' ')}`);
  return { missing, remedies };
}

const REINSTALL = 'npm install -g ./school-0.1.0.tgz';

/** What the process's surroundings tell (keychain-surroundings.ts) as a cause of this module's kinds. */
const SURROUNDING_KINDS: Record<SurroundingCause['kind'], KeychainCause> = {
  no_session_bus: 'no_session_bus',
  sandboxed: 'sandboxed',
  locked: 'locked',
  no_secret_service: 'no_keychain_service',
};

/** What is wrong with the keychain and how to fix it, for `school doctor` and a login's notice. */
export function explainKeychain(reason: string, machine: BuildMachine): KeychainExplanation {
  const cause = keychainCause(reason);
  // A module that loads but cannot reach a keyring: the surroundings (a host's trimmed environment,
  // its sandbox) say why more precisely than the error's words alone.
  if (!cause.startsWith('module_') && cause !== 'libsecret_missing') {
    const around = surroundingCause(reason, machine);
    if (around?.kind === 'no_session_bus' && !around.socket) {
      // No variable and no bus where one usually is: a host that trimmed the environment, or a
      // session with no bus at all (SSH, a container). Both fixes, the host's first.
      const noBus = explainKeychain('no session bus', { ...machine, env: { ...machine.env, DBUS_SESSION_BUS_ADDRESS: 'none' } });
      return { cause: 'no_session_bus', problem: noBus.problem, fix: `${keychainCauseText(around)}. Where the session has no bus at all: ${noBus.fix}` };
    }
    if (around) return { cause: SURROUNDING_KINDS[around.kind], problem: reason, fix: `${keychainCauseText(around)}.` };
  }
  switch (cause) {
    case 'module_missing': {
      const { missing, remedies } = missingForBuild(machine);
      const why = missing.length
        ? `no prebuilt binary could be downloaded, and this machine lacks ${missing.join(', ')} to build one`
        : 'no prebuilt binary could be downloaded and the build from source failed (`npm install -g --foreground-scripts` shows why)';
      const setting = remedies.find((r) => r.startsWith('npm_config_nodedir=')) ?? '';
      const installs = remedies.filter((r) => !r.startsWith('npm_config_nodedir='));
      const steps = [...installs, `${setting ? `${setting} ` : ''}${REINSTALL}`].join(', then ');
      return { cause, problem: `the keychain module (keytar) could not be built when school was installed: ${why}`, fix: `Build it: ${steps}.` };
    }
    case 'module_unbuilt':
      return {
        cause,
        problem: `${MODULE_UNBUILT}: its build script did not run (npm holds back install scripts it was not told to allow)`,
        fix: `Install school again, allowing that one script: npm install -g --allow-scripts=keytar ./school-0.1.0.tgz.`,
      };
    case 'module_other_node':
      return { cause, problem: `the keychain module was built for another Node.js version than this one (${machine.nodeVersion})`, fix: `Install school again with this Node: ${REINSTALL}.` };
    case 'libsecret_missing':
      return { cause, problem: 'the keychain module is built, but the libsecret library it uses is not installed', fix: 'Install libsecret: apt-get install libsecret-1-0.' };
    case 'no_session_bus':
      return {
        cause,
        problem: 'this session has no D-Bus session bus (an SSH login or a container has none), so no keychain can be reached',
        fix: 'Use a desktop session, or start a bus and a keyring for this shell: dbus-run-session -- bash, then gnome-keyring-daemon --unlock; or keep the 0600 file (--insecure-storage).',
      };
    case 'no_keychain_service':
      return { cause, problem: 'no keychain service (Secret Service) runs on the session bus', fix: 'Start one (e.g. gnome-keyring-daemon --start), or keep the 0600 file (--insecure-storage).' };
    case 'locked':
      return { cause, problem: reason, fix: 'Unlock the keyring (logging in to the desktop session usually does), or log in again.' };
    default:
      return { cause, problem: reason };
  }
}
