import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { BUILTIN_MANIFEST, summaryOf } from '../../src/tools/manifest';
import { builtinOf, displayNameOf, lmToolEntries, lmToolName, offeredContextKey } from '../../src/vscode/nativeChat/lmToolEntries';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const contributed: Record<string, unknown>[] = pkg.contributes.languageModelTools;

describe('package.json: the builtins as VS Code language-model tools', () => {
  it('holds exactly what the manifest generates (run node scripts/generate-lm-tools.js when this fails)', () => {
    assert.deepEqual(contributed, lmToolEntries());
  });

  it('contributes one toolbelt_<tool> per builtin, in manifest order', () => {
    assert.deepEqual(contributed.map((t) => t.name), BUILTIN_MANIFEST.map((d) => `toolbelt_${d.name}`));
  });

  for (const definition of BUILTIN_MANIFEST) {
    it(`describes ${definition.name} from the manifest, offered only while its context key is set`, () => {
      const entry = contributed.find((t) => t.name === lmToolName(definition.name));
      assert.ok(entry, `toolbelt_${definition.name} is contributed`);
      assert.equal(entry.modelDescription, definition.description);
      assert.equal(entry.userDescription, summaryOf(definition));
      assert.deepEqual(entry.inputSchema, definition.parameters);
      assert.equal(entry.displayName, displayNameOf(definition.name));
      assert.equal(entry.toolReferenceName, `toolbelt_${definition.name}`);
      assert.equal(entry.canBeReferencedInPrompt, true, 'the agent offers only tools that can be referenced');
      assert.equal(entry.when, `toolbelt.tool.${definition.name}.offered`);
    });
  }

  it('uses names VS Code accepts (^[\\w-]+$, not copilot_/vscode_) and an object schema', () => {
    for (const entry of contributed) {
      assert.match(String(entry.name), /^[\w-]+$/);
      assert.doesNotMatch(String(entry.name), /^(copilot_|vscode_)/);
      assert.equal((entry.inputSchema as { type: string }).type, 'object');
    }
  });

  it('maps VS Code tool names back to builtins, and nothing else', () => {
    assert.equal(builtinOf('toolbelt_read_file'), 'read_file');
    assert.equal(builtinOf('toolbelt_nope'), undefined);
    assert.equal(builtinOf('read_file'), undefined);
    assert.equal(offeredContextKey('run_bash'), 'toolbelt.tool.run_bash.offered');
    assert.equal(displayNameOf('generate_uuid'), 'Generate UUID');
  });
});
