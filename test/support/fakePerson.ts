import * as assert from 'node:assert/strict';
import { FakeInputBox, FakeQuickPick, QuickInputButtons, type FakeInput, type ShownInputs } from './fakeQuickInput';

/**
 * A scripted person answering a quick input flow shown through fakeQuickInput.ts: each answer
 * takes the next input the flow shows, waits for what it loads (busy false) like a person reading
 * it, and answers. `runFlow` fails when the flow ends before the script does, or shows a step the
 * script did not expect.
 */
export interface Answer {
  /** What the person does, in words (for failures). */
  what: string;
  answer(input: FakeInput): Promise<void>;
}

function asPick(input: FakeInput, what: string): FakeQuickPick {
  assert.ok(input instanceof FakeQuickPick, `The person ${what}, but the flow shows ${input.describe()}.`);
  return input;
}

function asBox(input: FakeInput, what: string): FakeInputBox {
  assert.ok(input instanceof FakeInputBox, `The person ${what}, but the flow shows ${input.describe()}.`);
  return input;
}

/** Picks the item whose label matches, once the list has loaded; `placeholder` checks which step it is. */
export function pick(label: RegExp, expect: { placeholder?: RegExp } = {}): Answer {
  const what = `picks ${label}${expect.placeholder ? ` in the step ${expect.placeholder}` : ''}`;
  return {
    what,
    async answer(input) {
      const shown = asPick(input, what);
      await shown.settled();
      if (expect.placeholder) assert.match(shown.placeholder ?? '', expect.placeholder, `The person ${what}, but the flow shows ${shown.describe()}.`);
      const item = shown.choices.find((candidate) => label.test(candidate.label));
      assert.ok(item, `The person ${what}, but the flow shows ${shown.describe()}.`);
      shown.accept(item);
    },
  };
}

/** Types `value` into the input box and presses Enter; `before` runs first (a server changes meanwhile). */
export function type(value: string, options: { before?: () => void } = {}): Answer {
  const what = `types ${JSON.stringify(value)}`;
  return {
    what,
    answer(input) {
      const box = asBox(input, what);
      options.before?.();
      box.type(value);
      return Promise.resolve();
    },
  };
}

/** Presses Back once what the step loads has loaded. */
export function back(): Answer {
  return {
    what: 'presses Back',
    async answer(input) {
      await input.settled();
      assert.ok(input.buttons.includes(QuickInputButtons.Back), `The person presses Back, but ${input.describe()} has no Back button.`);
      input.press(QuickInputButtons.Back);
    },
  };
}

/** Lets the test step of Connect a Model run; it must pass (the step closes by itself). */
export function passTest(): Answer {
  const what = 'lets the test request pass';
  return {
    what,
    async answer(input) {
      const shown = asPick(input, what);
      await shown.settled();
      assert.ok(shown.disposed, `The test step did not pass: ${shown.describe()} ${shown.items[0]?.detail ?? ''}`);
    },
  };
}

/** Answers the flow's steps with `answers` in order, then returns what the flow returned. */
export async function runFlow<T>(shown: ShownInputs, flow: Promise<T>, answers: Answer[]): Promise<T> {
  const ended = flow.then((result) => ({ ended: true as const, result }));
  const next = () => Promise.race([shown.next().then((input) => ({ ended: false as const, input })), ended]);
  for (const [index, answer] of answers.entries()) {
    const step = await next();
    if (step.ended) assert.fail(`The flow ended (returning ${String(step.result)}) before answer ${index + 1}: the person ${answer.what}.`);
    await answer.answer(step.input);
  }
  const after = await next();
  if (after.ended) return after.result;
  await after.input.settled();
  const extra = after.input.describe();
  after.input.hide();
  return assert.fail(`After the person's last answer the flow showed one more step: ${extra}.`);
}
