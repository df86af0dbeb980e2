// sed and awk programs that can start commands: GNU sed's `e` command and `s///e` flag, awk's
// system(), pipes to and from commands, gawk's indirect calls (@f) and extensions (@load).

/**
 * Whether a sed script can run a command. It is read command by command; whatever this reader
 * does not recognise counts as running one, so an unusual script asks rather than slips through.
 */
export function sedRunsCommands(script: string): boolean {
  let i = 0;
  const n = script.length;
  const skipBlanks = () => { while (i < n && /[ \t]/.test(script[i])) i++; };
  const toLineEnd = () => {
    while (i < n && script[i] !== '\n') i += script[i] === '\\' ? 2 : 1;
  };
  /** Past a delimited part (`/re/`, the parts of s and y), escapes included. */
  const delimited = (delimiter: string): boolean => {
    while (i < n && script[i] !== delimiter) {
      if (script[i] === '\n' && delimiter !== '\n') return false;
      i += script[i] === '\\' ? 2 : 1;
    }
    i++;
    return i <= n;
  };
  const address = (): boolean => {
    if (/\d/.test(script[i] ?? '')) {
      while (/[\d~]/.test(script[i] ?? '')) i++;
    } else if (script[i] === '$') i++;
    else if (script[i] === '/') {
      i++;
      if (!delimited('/')) return false;
      while (/[IM]/.test(script[i] ?? '')) i++;
    } else if (script[i] === '\\') {
      const delimiter = script[i + 1];
      i += 2;
      if (!delimiter || !delimited(delimiter)) return false;
      while (/[IM]/.test(script[i] ?? '')) i++;
    }
    return true;
  };
  while (i < n) {
    while (i < n && /[\s;]/.test(script[i])) i++;
    if (i >= n) break;
    if (script[i] === '#') {
      toLineEnd();
      continue;
    }
    if (!address()) return true;
    skipBlanks();
    if (script[i] === ',') {
      i++;
      skipBlanks();
      if (/[+~]/.test(script[i] ?? '')) i++;
      if (!address()) return true;
    }
    skipBlanks();
    while (script[i] === '!') {
      i++;
      skipBlanks();
    }
    const command = script[i++];
    if (command === undefined) return true;
    if ('{}=dDgGhHlnNpPxzFqQLv'.includes(command)) {
      while (/[\d ]/.test(script[i] ?? '') && script[i] !== '\n') i++;
    } else if ('aicrRwW'.includes(command)) {
      toLineEnd();
    } else if (':btT'.includes(command)) {
      while (i < n && script[i] !== '\n' && script[i] !== ';') i++;
    } else if (command === 's' || command === 'y') {
      const delimiter = script[i++];
      if (!delimiter || delimiter === '\n' || delimiter === '\\' || !delimited(delimiter) || !delimited(delimiter)) return true;
      if (command === 's') {
        const flags = /^[gpiImMe\d]*/.exec(script.slice(i))![0];
        if (flags.includes('e')) return true;
        i += flags.length;
        if (script[i] === 'w') toLineEnd();
      }
    } else {
      // `e` runs a command; anything else is not known here.
      return true;
    }
  }
  return false;
}

/** Whether an awk program can run a command: system(), `|` pipes, gawk's @-calls and @load. */
export function awkRunsCommands(program: string): boolean {
  return /\bsystem\b|@|(^|[^|])\|(?!\|)/.test(program);
}
