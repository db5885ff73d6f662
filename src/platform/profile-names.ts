import { UsageError } from '../errors.js';

/** Names Windows keeps for devices, whatever the extension (`con.json` is the console too). */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]|conin\$|conout\$)(\..*)?$/i;

/**
 * A profile's name becomes file names (its pending login, `pending/<name>.json`) and keychain
 * entries. Where file names ignore case (Windows and macOS, by default) and Windows Credential
 * Manager's names do too, `Work` and `work` would share them; Windows also takes device names
 * (`con`, `nul`, …) and drops a final dot. Such a name is refused when a profile is made, with the
 * existing profile it would collide with named.
 */
export function checkNewProfileName(name: string, platform: NodeJS.Platform, existing: readonly string[]): void {
  if (platform === 'win32') {
    if (WINDOWS_DEVICE.test(name)) {
      throw new UsageError(`The profile name "${name}" is a device name on Windows (like con, nul or aux), so it cannot name a file: choose another.`, { code: 'usage' });
    }
    if (name.endsWith('.')) throw new UsageError(`The profile name "${name}" ends with a dot, which Windows drops from file names: choose another.`, { code: 'usage' });
  }
  if (platform === 'win32' || platform === 'darwin') {
    const twin = existing.find((other) => other !== name && other.toLowerCase() === name.toLowerCase());
    if (twin) {
      throw new UsageError(`The profile "${name}" differs from the existing profile "${twin}" only by case, and would share its files here: use --profile ${twin}, or choose another name.`, {
        code: 'usage',
      });
    }
  }
}
