import * as assert from 'node:assert/strict';
import { parseWebviewMessage } from '../../src/protocol';

describe('The panel\'s new messages are checked on the host', () => {
  it('accepts Keep, Undo and Show Diff on an Apply proposal, and nothing else', () => {
    for (const decision of ['keep', 'discard', 'show']) {
      assert.deepEqual(parseWebviewMessage({ type: 'applyDecision', itemId: 'apply-1', decision }), { type: 'applyDecision', itemId: 'apply-1', decision });
    }
    assert.equal(parseWebviewMessage({ type: 'applyDecision', itemId: 'apply-1', decision: 'write' }), undefined);
    assert.equal(parseWebviewMessage({ type: 'applyDecision', itemId: 'x'.repeat(201), decision: 'keep' }), undefined);
  });

  it('accepts # queries and choices within bounds', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'suggestContext', seq: 3, query: 'inv' }), { type: 'suggestContext', seq: 3, query: 'inv' });
    assert.equal(parseWebviewMessage({ type: 'suggestContext', seq: 3, query: 'x'.repeat(201) }), undefined);
    assert.equal(parseWebviewMessage({ type: 'suggestContext', seq: 1.5, query: '' }), undefined);
    assert.deepEqual(parseWebviewMessage({ type: 'attachSuggestion', seq: 3, index: 0, used: 10 }), { type: 'attachSuggestion', seq: 3, index: 0, used: 10 });
    assert.equal(parseWebviewMessage({ type: 'attachSuggestion', seq: 3, index: -1, used: 0 }), undefined);
  });

  it('knows Configure Tools as a panel command', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'command', command: 'configureTools' }), { type: 'command', command: 'configureTools' });
  });
});
