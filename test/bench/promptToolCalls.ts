import { PromptToolCallParser } from '../../src/providers/promptToolCalls';

/**
 * Prompt-based tool calling for `npm run bench` (`node out/test/bench/promptToolCalls.js`): the
 * CPU time of reading a 500,000-character answer streamed in 16-character pieces, in the shapes a
 * hostile or merely long answer takes. Prints JSON; figures are the median of a few runs.
 */
const ANSWER_CHARS = 500_000;
const PIECE_CHARS = 16;
const RUNS = 5;

const SHAPES: Record<string, () => string> = {
  'plain prose': () => 'Some words of an answer, line after line.\n'.repeat(ANSWER_CHARS / 42 + 1).slice(0, ANSWER_CHARS),
  'one unclosed tool_call block': () => `\`\`\`tool_call\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "${'x'.repeat(ANSWER_CHARS)}`.slice(0, ANSWER_CHARS),
  'an unclosed block of short lines': () => `\`\`\`tool_call\n${'{"k": 1}\n'.repeat(ANSWER_CHARS / 9)}`.slice(0, ANSWER_CHARS),
  'many code blocks and calls': () => {
    const unit = 'Text.\n````markdown\n```tool_call\n{"name":"write_file","arguments":{"path":"x","content":"y"}}\n```\n````\n```tool_call\n{"name":"read_file","arguments":{"path":"a"}}\n```\n';
    return unit.repeat(Math.ceil(ANSWER_CHARS / unit.length)).slice(0, ANSWER_CHARS);
  },
};

function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function main(): void {
  const shapes: Record<string, { cpuMs: number; calls: number }> = {};
  for (const [name, make] of Object.entries(SHAPES)) {
    const answer = make();
    const pieces: string[] = [];
    for (let i = 0; i < answer.length; i += PIECE_CHARS) pieces.push(answer.slice(i, i + PIECE_CHARS));
    let calls = 0;
    const runs: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      runs.push(
        cpuMs(() => {
          const parser = new PromptToolCallParser(new Set(['read_file', 'write_file']), 'bench_');
          for (const piece of pieces) parser.push(piece);
          calls = parser.finish().calls.length;
        }),
      );
    }
    shapes[name] = { cpuMs: +median(runs).toFixed(1), calls };
  }
  process.stdout.write(JSON.stringify({ answerChars: ANSWER_CHARS, pieceChars: PIECE_CHARS, runs: RUNS, shapes }));
}

main();
