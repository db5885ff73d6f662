import { describe, expect, it } from 'vitest';
import { describeUser } from '../../src/ui/user.js';
import { printable } from '../../src/util/printable.js';

describe('server text on the terminal', () => {
  it('drops escape sequences and other control characters, keeping text, tabs and newlines', () => {
    expect(printable('bad \u001b[31mred\u001b[0m \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007\tok\nnext\u009b')).toBe('bad [31mred[0m ]8;;https://evil.examplelink]8;;\tok\nnext');
  });
  it('cleans user names from userinfo', () => {
    expect(describeUser({ name: 'Ada\u001b[2J Lovelace', email: 'ada@example.edu' })).toBe('Ada[2J Lovelace ada@example.edu');
  });
});
