// Command lines that a shell (or the CLI's BROWSER splitter) reads back as the very words they
// were made from, whatever the words hold: a checkout under `~/my schöol/` has spaces and
// non-ASCII letters in every path put into them.

/** One word in POSIX single quotes (a quote inside becomes `'\''`); plain words stay bare. */
export function shellWord(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The words as one command line, each quoted where it needs it. */
export function shellCommand(...words: string[]): string {
  return words.map(shellWord).join(' ');
}
