import * as assert from 'node:assert/strict';
import { sandboxHints } from '../../src/tools/sandbox/sandboxHints';

describe('sandbox: a denial says how to allow it', () => {
  const ws = '/work/ws';

  it('names the hosts a command could not reach with the network off, and the setting to change', () => {
    const [hint] = sandboxHints('Error: getaddrinfo ENOTFOUND pypi.org\ncurl: (6) Could not resolve host: github.com\n', { mode: 'auto', network: 'off' }, [ws], ws);
    assert.match(hint, /\(it tried pypi\.org, github\.com\): toolbelt\.sandbox\.network is "off"/);
    assert.deepEqual(sandboxHints('Error: getaddrinfo ENOTFOUND pypi.org', { mode: 'auto', network: 'on' }, [ws], ws), [], 'with the network on, a failed lookup is not the sandbox');
  });

  it('names a host the allow-list refused, from the proxy itself or a package manager\'s 403', () => {
    const output = "Toolbelt's sandbox refused a connection to evil.example: it is not in toolbelt.sandbox.allowedDomains.\nnpm error 403 Forbidden - GET https://npm.corp.example/left-pad\n";
    assert.deepEqual(sandboxHints(output, { mode: 'auto', network: 'allowlist', allowedDomains: ['registry.npmjs.org'] }, [ws], ws), [
      "Toolbelt's sandbox refused evil.example, npm.corp.example: not in toolbelt.sandbox.allowedDomains. Add the host there (your user settings) to allow it.",
    ]);
  });

  it('names the rule behind a read-only path: outside the workspace, git, workspace settings, the read-only list; nothing for a file no rule covers', () => {
    const output = [
      "cp: cannot create regular file '/home/u/.bashrc': Read-only file system",
      'error: could not lock config file .git/config: Device or resource busy',
      "touch: cannot touch 'sub/.vscode/settings.json': Read-only file system",
      'bash: line 1: tools/deploy.sh: Read-only file system',
      "touch: cannot touch 'src/a.ts': Read-only file system",
    ].join('\n');
    const hints = sandboxHints(output, { mode: 'auto', network: 'on', readOnlyPaths: ['tools/deploy.sh'] }, [ws], ws);
    assert.equal(hints.length, 4, hints.join('\n'));
    assert.match(hints[0], /^Protected by Toolbelt's sandbox: \/home\/u\/\.bashrc \(only the workspace folders are writable; toolbelt\.sandbox\.writablePaths/);
    assert.match(hints[1], /^Protected by Toolbelt's sandbox: \.git\/config \(git's config/);
    assert.match(hints[2], /^Protected by Toolbelt's sandbox: sub\/\.vscode\/settings\.json \(workspace settings/);
    assert.match(hints[3], /^Protected by Toolbelt's sandbox: tools\/deploy\.sh \(toolbelt\.sandbox\.readOnlyPaths: "tools\/deploy\.sh"/);
  });
});
