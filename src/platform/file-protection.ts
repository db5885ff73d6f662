/**
 * What keeps the plain-text credential file from other users, said in the platform's terms:
 * modes on Linux and macOS; on Windows, where modes mean nothing, the access rules of the user's
 * profile folder (%APPDATA%, %LOCALAPPDATA%), which other users cannot open (administrators can).
 */
export function fileProtection(platform: NodeJS.Platform): string {
  return platform === 'win32' ? "readable only by you through your Windows user folder's access rules (administrators can read it too)" : 'readable only by you (mode 0600)';
}
