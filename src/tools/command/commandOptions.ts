// Options of everyday programs whose value is a command the program runs (git -c core.pager=…,
// rg --pre, tar --to-command, rsync -e, ssh -o ProxyCommand=…): a rule allowing the program
// does not allow them, and under deny rules their command is judged too.
import type { ShellWord } from './commandWords';

type OptionSpec = {
  /** Options whose value is a command (short ones may have it attached: -Iprog). */
  options: string[];
  /** Of those, the ones whose value is `key=command` (git -c, ssh -o, tar --checkpoint-action=exec=). */
  keyed?: string[];
  /** Subcommand words after which the rest of the words are a command (git bisect run, submodule foreach). */
  rest?: string[];
};

const SSH: OptionSpec = { options: ['-o', '-S'], keyed: ['-o'] };
const OPTION_COMMANDS: Record<string, OptionSpec> = {
  rg: { options: ['--pre'] },
  sort: { options: ['--compress-program'] },
  tar: { options: ['-I', '--use-compress-program', '--to-command', '--checkpoint-action', '--info-script', '-F', '--new-volume-script', '--rsh-command'], keyed: ['--checkpoint-action'] },
  rsync: { options: ['-e', '--rsh', '--rsync-path'] },
  ssh: SSH, scp: SSH, sftp: SSH,
  man: { options: ['-P', '--pager', '-H', '--html'] },
  zip: { options: ['-TT', '--unzip-command'] },
  make: { options: ['--eval'] },
  npx: { options: ['-c', '--call'] },
  npm: { options: ['-c', '--call', '--script-shell'] },
};

/** git's own options come before its subcommand; each subcommand has its own. */
const GIT_GLOBAL: OptionSpec = { options: ['-c', '--config-env', '--exec-path'], keyed: ['-c'] };
const GIT_GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--list-cmds', '--attr-source']);
const GIT_SUBCOMMANDS: Record<string, OptionSpec> = {
  rebase: { options: ['-x', '--exec'] },
  difftool: { options: ['-x', '--extcmd'] },
  push: { options: ['--receive-pack', '--exec'] },
  fetch: { options: ['--upload-pack'] }, pull: { options: ['--upload-pack'] }, 'ls-remote': { options: ['--upload-pack'] },
  clone: { options: ['-u', '--upload-pack'] },
  archive: { options: ['--exec'] },
  grep: { options: ['-O', '--open-files-in-pager'] },
  bisect: { options: [], rest: ['run'] },
  submodule: { options: [], rest: ['foreach'] },
  'filter-branch': { options: ['--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter', '--commit-filter', '--tag-name-filter'] },
};

/** Each option of the command that runs a command, with that command as written. */
export function optionCommands(name: string, words: readonly ShellWord[]): { option: string; command: ShellWord }[] {
  if (name === 'git') {
    let sub = 1;
    while (sub < words.length && words[sub].value.startsWith('-')) sub += GIT_GLOBAL_WITH_VALUE.has(words[sub].value) ? 2 : 1;
    const subcommand = GIT_SUBCOMMANDS[words[sub]?.value ?? ''];
    return [...commandsOf(GIT_GLOBAL, words.slice(0, sub)), ...(subcommand ? commandsOf(subcommand, words.slice(sub)) : [])];
  }
  const spec = OPTION_COMMANDS[name];
  return spec ? commandsOf(spec, words) : [];
}

function commandsOf(spec: OptionSpec, words: readonly ShellWord[]): { option: string; command: ShellWord }[] {
  const found: { option: string; command: ShellWord }[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word.literal && spec.rest?.includes(word.value) && i + 1 < words.length) {
      const rest = words.slice(i + 1);
      found.push({ option: word.value, command: { value: rest.map((w) => w.value).join(' '), literal: rest.every((w) => w.literal), raw: rest.map((w) => w.raw).join(' ') } });
      break;
    }
    for (const option of spec.options) {
      let value: ShellWord | undefined;
      if (word.value === option) value = words[++i];
      else if (word.value.startsWith(`${option}=`)) value = { ...word, value: word.value.slice(option.length + 1) };
      else if (option.length === 2 && option !== '-c' && new RegExp(`^-[A-Za-z]+${option[1]}$`).test(word.value)) value = words[++i];
      else if (option.length === 2 && !word.value.startsWith('--') && word.value.startsWith(option)) value = { ...word, value: word.value.slice(2) };
      if (!value) continue;
      const command = spec.keyed?.includes(option) ? { ...value, value: value.value.replace(/^[\w.-]+(=|\s+)/, '').replace(/^exec=/, '') } : value;
      found.push({ option, command });
      break;
    }
  }
  return found;
}
