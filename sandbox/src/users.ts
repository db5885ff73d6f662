// Demo accounts of the sandbox. Passwords are deliberately well known: this server only
// ever listens on 127.0.0.1 and exists for tests and demonstrations.

export interface SandboxUser {
  username: string;
  password: string;
  sub: string;
  name: string;
  email: string;
}

export function defaultUsers(): SandboxUser[] {
  // A fresh copy per sandbox so a test that edits the list cannot leak into another one.
  return [
    { username: 'ada', password: 'lovelace', sub: 'usr_1815_ada', name: 'Ada Lovelace', email: 'ada@example.edu' },
    { username: 'alan', password: 'turing', sub: 'usr_1912_alan', name: 'Alan Turing', email: 'alan@example.edu' },
  ];
}
