import * as assert from 'node:assert/strict';
import { evaluate, formatNumber } from '../../src/tools/calculator';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { contextFor } from '../support/workspace';

describe('calculator builtin', () => {
  const cases: [string, number][] = [
    ['1 + 2', 3],
    ['2 + 3 * 4', 14],
    ['(2 + 3) * 4', 20],
    ['10 / 4', 2.5],
    ['10 % 4', 2],
    ['2 ^ 10', 1024],
    ['2 ** 3', 8],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -1', 0.5],
    ['--3', 3],
    ['-(4 - 6)', 2],
    ['+5', 5],
    ['sqrt(16) + abs(-3)', 7],
    ['round(2.5)', 3],
    ['round(3.14159, 2)', 3.14],
    ['floor(-1.5) + ceil(1.2)', 0],
    ['min(4, 2, 8) + max(1, 9)', 11],
    ['pow(3, 4)', 81],
    ['log(1000)', 3],
    ['log(8, 2)', 3],
    ['ln(e)', 1],
    ['log2(1024)', 10],
    ['sin(0) + cos(0)', 1],
    ['pi', Math.PI],
    ['2 * pi', 2 * Math.PI],
    ['tau / 2', Math.PI],
    ['5!', 120],
    ['3! ^ 2', 36],
    ['1e3 + 2.5E-1', 1000.25],
    ['.5 + 1.', 1.5],
    ['1_000 * 3', 3000],
    ['PI', Math.PI],
    ['SQRT(9)', 3],
    ['hypot(3, 4)', 5],
    ['  7   ', 7],
    ['3 × 4 ÷ 2 − 1', 5],
  ];
  for (const [expression, expected] of cases) {
    it(`evaluates ${expression}`, () => {
      assert.ok(Math.abs(evaluate(expression) - expected) < 1e-12, `${expression} = ${evaluate(expression)}`);
    });
  }

  it('formats results without float noise', () => {
    assert.equal(formatNumber(evaluate('0.1 + 0.2')), '0.3');
    assert.equal(formatNumber(evaluate('1 / 3')), '0.333333333333333');
    assert.equal(formatNumber(evaluate('-0')), '0');
    assert.equal(formatNumber(evaluate('2^60')), '1152921504606850000');
  });

  const errors: [string, RegExp][] = [
    ['', /empty/],
    ['2 +', /ends too early/],
    ['(1 + 2', /Missing "\)"/],
    ['1 + 2)', /Unexpected "\)" at position 6/],
    ['1 / 0', /infinite/],
    ['sqrt(-1)', /not a number/],
    ['foo(2)', /Unknown function "foo"/],
    ['x + 1', /Unknown name "x"/],
    ['sqrt', /is a function/],
    ['pow(2)', /takes 2 arguments, got 1/],
    ['2 $ 3', /Unexpected character "\$"/],
    ['(-1)!', /whole number/],
    ['2.5!', /whole number/],
    ['1.2.3', /Unexpected/],
    ['2 3', /Unexpected "3"/],
    ['constructor', /Unknown name/],
    ['process.exit(1)', /Unknown name "process"|Unexpected/],
    ['require("fs")', /Unexpected character """/],
    ['require(1)', /Unknown function "require"/],
    ['valueOf(1)', /Unknown function "valueof"/],
    ['hasOwnProperty', /Unknown name/],
    ['this', /Unknown name "this"/],
    ['__proto__', /Unknown name/],
    ['toString()', /Unknown function "tostring"/],
    ['1 + "2"', /Unexpected character/],
    ['`1`', /Unexpected character/],
  ];
  for (const [expression, pattern] of errors) {
    it(`rejects ${JSON.stringify(expression)} with a clear error`, () => {
      assert.throws(() => evaluate(expression), pattern);
    });
  }

  it('refuses runaway nesting and length instead of overflowing the stack', () => {
    assert.throws(() => evaluate('('.repeat(200) + '1' + ')'.repeat(200)), /nests deeper/);
    assert.throws(() => evaluate('-'.repeat(200) + '1'), /nests deeper/);
    assert.equal(evaluate('('.repeat(30) + '1' + ')'.repeat(30)), 1);
    assert.throws(() => evaluate('1+'.repeat(600) + '1'), /longer than 1000/);
  });

  it('never evaluates code: no eval or Function in the implementation', async () => {
    const { readFile } = await import('node:fs/promises');
    const source = await readFile(require.resolve('../../src/tools/calculator'), 'utf8');
    assert.doesNotMatch(source, /\beval\s*\(|new Function|Function\s*\(/);
  });

  it('runs through the registry, returning the number as text or an error string', async () => {
    const registry = createDefaultToolRegistry(contextFor('/tmp'));
    assert.equal(await registry.execute('calculator', { expression: '(3 + 4) * 2 ^ 3 / sqrt(16)' }), '14');
    assert.equal(await registry.execute('calculator', { expression: '1 +' }), 'Error executing calculator: The expression ends too early.');
    assert.match(await registry.execute('calculator', {}), /"expression" is required/);
  });
});
