import * as assert from 'node:assert/strict';
import { BUILTIN_NAMES } from '../../src/tools/manifest';
import { builtinBehindOwnName, isOwnToolName, MODEL_NAME_MAX_LENGTH, modelNameFor, ModelNameClaims } from '../../src/tools/toolNames';

const SAFE = /^[A-Za-z0-9_-]+$/;

describe('tool names the model sees (toolNames)', () => {
  it('turns a server/tool name into one of [A-Za-z0-9_-]', () => {
    assert.equal(modelNameFor('github/create_issue'), 'github_create_issue');
    assert.equal(modelNameFor('my server/do.it!'), 'my_server_do_it_');
    assert.equal(modelNameFor('files/lire-un-fichier'), 'files_lire-un-fichier');
    assert.equal(modelNameFor('café/ünïcode'), 'caf___n_code');
  });

  it('leaves a name that is already safe as it is', () => {
    for (const name of ['read_file', 'copilot_searchCodebase', 'a-b_C9']) assert.equal(modelNameFor(name), name);
  });

  it('keeps long names within 64 characters with a stable hash suffix', () => {
    const long = `server/${'x'.repeat(100)}`;
    const name = modelNameFor(long);
    assert.equal(name.length, MODEL_NAME_MAX_LENGTH);
    assert.match(name, SAFE);
    assert.match(name, /^server_x+_[0-9a-f]{8}$/);
    assert.equal(modelNameFor(long), name, 'the same name every time');
  });

  it('gives two long names that share their start different model names', () => {
    const a = modelNameFor(`server/${'y'.repeat(80)}a`);
    const b = modelNameFor(`server/${'y'.repeat(80)}b`);
    assert.notEqual(a, b);
    assert.equal(a.slice(0, 55), b.slice(0, 55));
  });

  it('never returns an empty or unsafe name, whatever it is given', () => {
    for (const raw of ['', '/', '   ', '日本語/ツール', 'a'.repeat(64), 'a'.repeat(65), '\u0000\n\t']) {
      const name = modelNameFor(raw);
      assert.match(name, SAFE, JSON.stringify(raw));
      assert.ok(name.length >= 1 && name.length <= MODEL_NAME_MAX_LENGTH, JSON.stringify(raw));
    }
    assert.equal(modelNameFor('a'.repeat(64)), 'a'.repeat(64), 'exactly 64 is kept');
    assert.notEqual(modelNameFor('a'.repeat(65)), 'a'.repeat(64), 'one more is hashed, not cut');
  });

  it("recognizes Toolbelt's own VS Code names", () => {
    assert.equal(isOwnToolName('toolbelt_read_file'), true);
    assert.equal(isOwnToolName('read_file'), false);
    assert.equal(builtinBehindOwnName('toolbelt_read_file'), 'read_file');
    assert.equal(builtinBehindOwnName('toolbelt_nothing'), undefined);
    assert.equal(builtinBehindOwnName('read_file'), undefined);
  });

  describe('ModelNameClaims', () => {
    it('lets the first claim win and names the holder to a later one', () => {
      const claims = new ModelNameClaims();
      assert.deepEqual(claims.claim('a_b', 'a/b', false), { ok: true });
      assert.deepEqual(claims.claim('a_b', 'a_b', false), { ok: false, holder: 'a/b', builtin: false });
      assert.deepEqual(claims.claim('a_b', 'a/b', false), { ok: true }, 'the holder may claim its own name again');
    });

    it('reserves every builtin name, registered or not', () => {
      const claims = new ModelNameClaims();
      for (const builtin of BUILTIN_NAMES) {
        assert.deepEqual(claims.claim(builtin, `x/${builtin}`, false), { ok: false, holder: builtin, builtin: true });
        assert.deepEqual(claims.claim(builtin, builtin, true), { ok: true });
      }
    });
  });
});
