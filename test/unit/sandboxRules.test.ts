import * as assert from 'node:assert/strict';
import { DEFAULT_READ_ONLY_PATHS, readOnlyPathsIn } from '../../src/tools/sandbox/sandboxReadOnly';
import { hashEntries } from '../../src/tools/trustRules';
import { describeContainment, effectiveSandbox, SANDBOX_UNAVAILABLE_VARIABLE, sandboxAvailability, sandboxDecision, type SandboxAvailability } from '../../src/tools/sandbox/sandboxAvailability';
import { buildSandboxRules, type SandboxSettingValues } from '../../src/tools/sandbox/sandboxSettings';

const AVAILABLE: SandboxAvailability = { available: true, engine: 'bubblewrap 0.8.0', detail: 'works' };
const MISSING: SandboxAvailability = { available: false, engine: 'bubblewrap', detail: 'bubblewrap is not installed.' };

/** Settings values with only the given levels set. */
function values(user: Record<string, unknown> = {}, workspace: Record<string, unknown> = {}): SandboxSettingValues {
  const level = (key: string) => ({ user: user[key], workspace: workspace[key] });
  return { mode: level('mode'), network: level('network'), allowedDomains: level('allowedDomains'), hiddenPaths: level('hiddenPaths'), env: level('env'), readablePaths: level('readablePaths'), writablePaths: level('writablePaths'), readOnlyPaths: level('readOnlyPaths') };
}

describe('sandbox: the decision before a command runs', () => {
  it('reads an absent setting as auto with the network off, and unknown values as the strict ones', () => {
    assert.deepEqual(effectiveSandbox(undefined), { mode: 'auto', network: 'off' });
    assert.deepEqual(effectiveSandbox({ mode: 'sometimes' as 'auto', network: 'wide' as 'on' }), { mode: 'auto', network: 'off' });
  });

  it('runs sandboxed wherever a sandbox is available, unless the mode is off', () => {
    assert.deepEqual(sandboxDecision(undefined, AVAILABLE), { kind: 'sandboxed' });
    assert.deepEqual(sandboxDecision({ mode: 'required', network: 'on' }, AVAILABLE), { kind: 'sandboxed' });
    assert.deepEqual(sandboxDecision({ mode: 'off', network: 'off' }, AVAILABLE), { kind: 'unsandboxed-allowed' });
    assert.deepEqual(sandboxDecision({ mode: 'off', network: 'off' }, MISSING), { kind: 'unsandboxed-allowed' });
  });

  it('without a sandbox: auto asks (reason unsandboxed, saying why), required refuses saying why', () => {
    const ask = sandboxDecision(undefined, MISSING, 'Run `make`');
    assert.equal(ask.kind, 'ask');
    assert.equal(ask.kind === 'ask' && ask.reason, 'unsandboxed');
    assert.match(ask.kind === 'ask' ? ask.summary : '', /^Run `make` without a sandbox, .*bubblewrap is not installed/);
    const refuse = sandboxDecision({ mode: 'required', network: 'off' }, MISSING);
    assert.match(refuse.kind === 'refuse' ? refuse.message : '', /"required" and no sandbox is available here: bubblewrap is not installed\. Nothing was run\./);
  });

  it('reports "unavailable" whatever the machine has while TOOLBELT_SANDBOX_UNAVAILABLE=1', async () => {
    const saved = process.env[SANDBOX_UNAVAILABLE_VARIABLE];
    process.env[SANDBOX_UNAVAILABLE_VARIABLE] = '1';
    try {
      const availability = await sandboxAvailability();
      assert.equal(availability.available, false);
      assert.match(availability.detail, /TOOLBELT_SANDBOX_UNAVAILABLE=1/);
    } finally {
      if (saved === undefined) delete process.env[SANDBOX_UNAVAILABLE_VARIABLE];
      else process.env[SANDBOX_UNAVAILABLE_VARIABLE] = saved;
    }
  });

  it('describes how a call ran, for the result header and the call log', () => {
    assert.equal(describeContainment(undefined, true), 'sandboxed, network off');
    assert.equal(describeContainment({ mode: 'auto', network: 'on' }, true), 'sandboxed, network on');
    assert.equal(describeContainment({ mode: 'auto', network: 'allowlist', allowedDomains: ['a.com', 'b.com', 'c.com', 'd.com'] }, true), 'sandboxed, network only to a.com, b.com, c.com and 1 more');
    assert.equal(describeContainment({ mode: 'off', network: 'off' }, false), 'not sandboxed (toolbelt.sandbox.mode is "off")');
    assert.equal(describeContainment(undefined, false), 'not sandboxed (no sandbox available)');
  });
});

describe('sandbox settings: a workspace can only tighten', () => {
  it('defaults to auto, network off, nothing pending', () => {
    const rules = buildSandboxRules(values(), undefined);
    assert.deepEqual(rules.sandbox, { mode: 'auto', network: 'off', allowedDomains: [], hiddenPaths: [], env: [] });
    assert.equal(rules.pendingWorkspace, undefined);
    assert.deepEqual(rules.problems, []);
  });

  it('applies what tightens at once: a stricter mode, less network, a narrower list, more hidden paths', () => {
    const rules = buildSandboxRules(
      values({ mode: 'off', network: 'allowlist', allowedDomains: ['a.com', 'b.com'], hiddenPaths: ['~/mine'] }, { mode: 'required', allowedDomains: ['b.com'], hiddenPaths: ['secrets'] }),
      undefined,
    );
    assert.deepEqual(rules.sandbox, { mode: 'required', network: 'allowlist', allowedDomains: ['b.com'], hiddenPaths: ['~/mine', 'secrets'], env: [] });
    assert.equal(rules.pendingWorkspace, undefined);
    assert.deepEqual(buildSandboxRules(values({ network: 'on' }, { network: 'allowlist', allowedDomains: ['x.org'] }), undefined).sandbox.allowedDomains, ['x.org']);
    assert.equal(buildSandboxRules(values({ network: 'on' }, { network: 'off' }), undefined).sandbox.network, 'off');
  });

  it('holds back what loosens until the person accepts that exact change, applying the stricter reading meanwhile', () => {
    const raw = values({ network: 'allowlist', allowedDomains: ['a.com'] }, { mode: 'off', allowedDomains: ['a.com', 'evil.com'], env: ['AWS_SECRET_ACCESS_KEY'] });
    const pending = buildSandboxRules(raw, undefined);
    assert.deepEqual(pending.sandbox, { mode: 'auto', network: 'allowlist', allowedDomains: ['a.com'], hiddenPaths: [], env: [] });
    assert.deepEqual(pending.pendingWorkspace?.changes, ['mode "off" instead of "auto"', 'the domains evil.com', 'the environment variables AWS_SECRET_ACCESS_KEY']);
    const accepted = buildSandboxRules(raw, pending.pendingWorkspace!.hash);
    assert.deepEqual(accepted.sandbox, { mode: 'off', network: 'allowlist', allowedDomains: ['a.com', 'evil.com'], hiddenPaths: [], env: ['AWS_SECRET_ACCESS_KEY'] });
    assert.equal(accepted.pendingWorkspace, undefined);
    // A later, wider change is not covered by the acceptance of the earlier one.
    const wider = buildSandboxRules(values({ network: 'allowlist', allowedDomains: ['a.com'] }, { mode: 'off', allowedDomains: ['a.com', 'evil.com', 'worse.com'], env: ['AWS_SECRET_ACCESS_KEY'] }), pending.pendingWorkspace!.hash);
    assert.equal(wider.sandbox.mode, 'auto');
    assert.ok(wider.pendingWorkspace);
  });

  it('counts opening the network as loosening, and turning it off as tightening', () => {
    const opened = buildSandboxRules(values({}, { network: 'on' }), undefined);
    assert.equal(opened.sandbox.network, 'off');
    assert.deepEqual(opened.pendingWorkspace?.changes, ['network "on" instead of "off"']);
    const listed = buildSandboxRules(values({}, { network: 'allowlist', allowedDomains: ['registry.npmjs.org'] }), undefined);
    assert.equal(listed.sandbox.network, 'off');
    assert.deepEqual(listed.pendingWorkspace?.changes, ['network "allowlist" instead of "off"', 'the domains registry.npmjs.org']);
  });

  it("applies the person's readable and writable paths; a workspace's own take the person's acceptance", () => {
    const mine = buildSandboxRules(values({ readablePaths: ['~/.m2/settings.xml'], writablePaths: ['~/.cargo/registry'] }), undefined);
    assert.deepEqual([mine.sandbox.readablePaths, mine.sandbox.writablePaths], [['~/.m2/settings.xml'], ['~/.cargo/registry']]);
    const raw = values({ readablePaths: ['~/.m2/settings.xml'] }, { readablePaths: ['~/.m2/settings.xml', '~/code/other'], writablePaths: ['~'] });
    const pending = buildSandboxRules(raw, undefined);
    assert.deepEqual([pending.sandbox.readablePaths, pending.sandbox.writablePaths], [['~/.m2/settings.xml'], undefined]);
    assert.deepEqual(pending.pendingWorkspace?.changes, ['the readable paths ~/code/other', 'the writable paths ~']);
    const accepted = buildSandboxRules(raw, pending.pendingWorkspace!.hash);
    assert.deepEqual([accepted.sandbox.readablePaths, accepted.sandbox.writablePaths], [['~/.m2/settings.xml', '~/code/other'], ['~']]);
    // The hash of a workspace without these settings is what it was before they existed: earlier acceptances hold.
    const older = values({ network: 'allowlist', allowedDomains: ['a.com'] }, { allowedDomains: ['a.com', 'b.com'] });
    assert.equal(buildSandboxRules(older, undefined).pendingWorkspace?.hash, hashEntries([JSON.stringify([undefined, undefined, ['a.com', 'b.com'], undefined])]));
  });

  it('adds up read-only paths from both levels at once (they only tighten), naming entries that leave the folder', () => {
    const rules = buildSandboxRules(values({ readOnlyPaths: ['tools/deploy.sh'] }, { readOnlyPaths: ['ops/', '/etc/passwd', '../outside', '~/x'] }), undefined);
    assert.deepEqual(rules.sandbox.readOnlyPaths, ['tools/deploy.sh', 'ops/']);
    assert.equal(rules.pendingWorkspace, undefined);
    assert.equal(rules.problems.length, 3, rules.problems.join('\n'));
    assert.match(rules.problems.join('\n'), /"\.\.\/outside" leads out of the workspace folder/);
    assert.deepEqual(readOnlyPathsIn(['/ws'], ['ops/']).filter((p) => !DEFAULT_READ_ONLY_PATHS.some((d) => p === `/ws/${d.replace(/\/$/, '')}`)), ['/ws/ops']);
  });

  it('keeps hiddenPaths patterns relative to the workspace and names one outside it instead of ignoring it silently', () => {
    const rules = buildSandboxRules(values({ hiddenPaths: ['~/keys/*.pem', 'secrets/**', '~/notes'] }), undefined);
    assert.deepEqual(rules.sandbox.hiddenPaths, ['secrets/**', '~/notes']);
    assert.match(rules.problems.join('\n'), /"~\/keys\/\*\.pem" is a pattern outside the workspace/);
  });

  it('reports unusable values and ignores them', () => {
    const rules = buildSandboxRules(values({ mode: 'sometimes', env: ['OK_NAME', 'not a name', 3], allowedDomains: 'a.com' }, { network: 7 }), undefined);
    assert.deepEqual(rules.sandbox, { mode: 'auto', network: 'off', allowedDomains: [], hiddenPaths: [], env: ['OK_NAME'] });
    assert.equal(rules.problems.length, 5, rules.problems.join('\n'));
  });
});
