import * as assert from 'node:assert/strict';
import { skippedLine, undoneLine } from '../../src/webview/undoWording';

describe('Undo wording: what happened to each file', () => {
  const skip = (path: string) => ({ path, reason: 'changed after the turn', comparable: true });

  it('says restored, removed and already-as-before apart', () => {
    assert.equal(undoneLine({ restored: ['a.ts'], skipped: [] }), 'Undone: restored a.ts.');
    assert.equal(undoneLine({ restored: ['new.ts'], removed: ['new.ts'], skipped: [] }), 'Undone: removed new.ts (the turn had created it).');
    assert.equal(
      undoneLine({ restored: ['a.ts', 'gen', 'gen/b.ts', 'c.ts'], removed: ['gen', 'gen/b.ts'], unchanged: ['c.ts'], skipped: [] }),
      'Undone: restored a.ts; removed gen, gen/b.ts (the turn had created them); c.ts was already as before the turn.',
    );
  });

  it('never says it restored nothing and skipped something in one breath', () => {
    const line = undoneLine({ restored: [], skipped: [skip('a.ts')] });
    assert.equal(line, 'Nothing was put back.');
    assert.doesNotMatch(line, /needed|restored/);
    assert.equal(skippedLine(skip('a.ts')), 'Left a.ts as it is: changed after the turn.');
    assert.equal(undoneLine({ restored: [], skipped: [] }), 'Undone: nothing was left to put back.');
  });

  it('shows hidden characters in names instead of obeying them', () => {
    assert.equal(undoneLine({ restored: ['a\u202eb.ts'], skipped: [] }), 'Undone: restored a\\u{202E}b.ts.');
  });
});
