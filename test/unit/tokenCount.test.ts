import * as assert from 'node:assert/strict';
import { compact } from '../../src/webview/tokenCount';

describe('The context meter\'s numbers', () => {
  it('never rounds a window up to a size it does not have', () => {
    const cases: [number, string][] = [
      [636, '636'],
      [1_234, '1.2k'],
      [8_192, '8.2k'],
      [32_000, '32k'],
      [32_768, '32.8k'],
      [128_000, '128k'],
      [131_072, '131k'],
      [1_048_576, '1.0M'],
    ];
    for (const [tokens, text] of cases) assert.equal(compact(tokens), text, String(tokens));
  });
});
