import * as vscode from 'vscode';

/** What a step returns: the answer, Back, or nothing (the person closed the flow). */
export const BACK = Symbol('back');
export type StepResult<T> = T | typeof BACK | undefined;

export interface StepFrame {
  title: string;
  step: number;
  totalSteps: number;
  /** Show the Back button (every step but the first). */
  back: boolean;
}

/** A QuickPick step with a step counter and Back; `items` may still be loading (the pick shows busy meanwhile). */
export async function pickStep<T extends vscode.QuickPickItem>(
  frame: StepFrame & { placeholder?: string; items: T[] | Promise<T[]>; active?: (item: T) => boolean },
): Promise<StepResult<T>> {
  const pick = vscode.window.createQuickPick<T>();
  pick.title = frame.title;
  pick.step = frame.step;
  pick.totalSteps = frame.totalSteps;
  pick.placeholder = frame.placeholder;
  pick.ignoreFocusOut = true;
  pick.matchOnDescription = true;
  pick.buttons = frame.back ? [vscode.QuickInputButtons.Back] : [];
  const disposables: vscode.Disposable[] = [pick];
  try {
    return await new Promise<StepResult<T>>((resolve) => {
      let settled = false;
      const done = (value: StepResult<T>) => {
        settled = true;
        resolve(value);
      };
      disposables.push(
        pick.onDidTriggerButton((button) => button === vscode.QuickInputButtons.Back && done(BACK)),
        pick.onDidAccept(() => pick.selectedItems[0] && done(pick.selectedItems[0])),
        pick.onDidHide(() => settled || done(undefined)),
      );
      const show = (items: T[]) => {
        pick.items = items;
        const active = frame.active && items.find(frame.active);
        if (active) pick.activeItems = [active];
        pick.busy = false;
      };
      if (Array.isArray(frame.items)) show(frame.items);
      else {
        pick.busy = true;
        frame.items.then(show, (error: unknown) => {
          pick.busy = false;
          pick.placeholder = error instanceof Error ? error.message : String(error);
        });
      }
      pick.show();
    });
  } finally {
    vscode.Disposable.from(...disposables).dispose();
  }
}

/** An InputBox step with a step counter, Back and a check of the value. */
export async function inputStep(
  frame: StepFrame & {
    value?: string;
    prompt: string;
    placeholder?: string;
    password?: boolean;
    validate?: (value: string) => string | undefined;
    /** A doubt about the value that does not stop Enter (a model name not on the server's list). */
    warn?: (value: string) => string | undefined;
  },
): Promise<StepResult<string>> {
  const box = vscode.window.createInputBox();
  box.title = frame.title;
  box.step = frame.step;
  box.totalSteps = frame.totalSteps;
  box.value = frame.value ?? '';
  box.prompt = frame.prompt;
  box.placeholder = frame.placeholder;
  box.password = frame.password === true;
  box.ignoreFocusOut = true;
  box.buttons = frame.back ? [vscode.QuickInputButtons.Back] : [];
  const check = (value: string): string | vscode.InputBoxValidationMessage | undefined => {
    const problem = frame.validate?.(value);
    if (problem) return problem;
    const doubt = frame.warn?.(value);
    return doubt ? { message: doubt, severity: vscode.InputBoxValidationSeverity.Warning } : undefined;
  };
  box.validationMessage = frame.value ? check(frame.value) : undefined;
  const disposables: vscode.Disposable[] = [box];
  try {
    return await new Promise<StepResult<string>>((resolve) => {
      let settled = false;
      const done = (value: StepResult<string>) => {
        settled = true;
        resolve(value);
      };
      disposables.push(
        box.onDidTriggerButton((button) => button === vscode.QuickInputButtons.Back && done(BACK)),
        box.onDidChangeValue((value) => (box.validationMessage = check(value))),
        box.onDidAccept(() => {
          const problem = frame.validate?.(box.value);
          if (problem) box.validationMessage = problem;
          else done(box.value);
        }),
        box.onDidHide(() => settled || done(undefined)),
      );
      box.show();
    });
  } finally {
    vscode.Disposable.from(...disposables).dispose();
  }
}
