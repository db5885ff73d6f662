import { describe, expect, it } from 'vitest';
import { notLoggedIn } from '../../src/session/session.js';
import { stepUpCommand } from '../../src/session/step-up.js';
import { seedCommands } from '../../src/session/ci-seeds.js';
import { loginCommandText, loginFix, placeholder, shellWord } from '../../src/util/login-command.js';

describe('the one writer of `school login …` command lines', () => {
  it('writes server, profile, scopes, then the other options, leaving out the default profile', () => {
    expect(loginCommandText()).toBe('school login');
    expect(loginCommandText({ profile: 'default', baseUrl: 'https://s.example' })).toBe('school login --base-url https://s.example');
    expect(loginCommandText({ profile: 'work', addScope: ['a:read', 'b:write'], options: ['--no-wait', ['--timeout', '60']] })).toBe(
      'school login --profile work --add-scope a:read,b:write --no-wait --timeout 60',
    );
    expect(loginCommandText({ scope: [] })).toBe('school login');
  });

  it('quotes every word a shell would split or expand', () => {
    expect(loginCommandText({ profile: 'a b', scope: ['x;rm'] })).toBe("school login --profile 'a b' --scope 'x;rm'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
  });

  it('writes a placeholder as it is, the one word left for the person to fill in', () => {
    expect(loginCommandText({ baseUrl: placeholder('<url>'), profile: 'work', options: [['--add-scope', placeholder('<scope>')]] })).toBe(
      'school login --base-url <url> --profile work --add-scope <scope>',
    );
    // A value that merely looks like one is the server's or the person's, and is quoted.
    expect(loginCommandText({ baseUrl: '<url>' })).toBe("school login --base-url '<url>'");
  });

  it("quotes the profile in the CI seed's two commands", () => {
    expect(seedCommands('https://s.example', 'ci job;x')).toBe("school login --base-url https://s.example --profile 'ci job;x'\nschool token --profile 'ci job;x' --for-ci");
  });

  it('serves the step-up hint', () => {
    expect(stepUpCommand({ profile: 'work' }, ['courses:write', 'courses:write', 'bad scope'])).toBe('school login --profile work --add-scope courses:write');
  });
});

describe('hints as data', () => {
  it('gives the command beside the sentence, never only inside it', () => {
    // One shape for every hint: the command alone on its own line, after a sentence where one is needed.
    expect(loginFix('work', 'https://s.example')).toEqual({ hint: 'school login --base-url https://s.example --profile work', command: 'school login --base-url https://s.example --profile work' });
    // The lead may be lower case; the command keeps its own case.
    expect(loginFix('Work', 'https://S.example/x', 'Unlock it, or log in again').hint).toBe('Unlock it, or log in again:\nschool login --base-url https://S.example/x --profile Work');
    const err = notLoggedIn({ profile: 'work', baseUrl: 'https://s.example' });
    expect(err).toMatchObject({ code: 'not_logged_in', command: 'school login --base-url https://s.example --profile work' });
  });
});
