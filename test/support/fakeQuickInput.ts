import { FakeConfiguration, ConfigurationTarget, type Level, type LevelValues } from './fakeConfiguration';
import { FakeDisposable as Disposable } from './fakeDisposable';

/**
 * The part of VS Code's API a multi-step quick input flow uses (src/vscode/chat/quickSteps.ts,
 * connectTest.ts, connectModel.ts, saveModelSettings.ts): quick picks and input boxes that a
 * scripted person answers (fakePerson.ts), settings at three levels, workspace trust and
 * VS Code's own chat models.
 */

type Listener<T> = (value: T) => unknown;

export class EventEmitter<T> {
  private readonly listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>) => (this.listeners.add(listener), new Disposable(() => this.listeners.delete(listener)));
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export const QuickInputButtons = { Back: { tooltip: 'Back' } } as const;
export const QuickPickItemKind = { Separator: -1, Default: 0 } as const;
export const InputBoxValidationSeverity = { Info: 1, Warning: 2, Error: 3 } as const;

export interface Item {
  label: string;
  kind?: number;
  description?: string;
  detail?: string;
}

/** What quick picks and input boxes share: the frame, Back, showing, hiding and disposing. */
abstract class FakeQuickInput {
  title?: string;
  step?: number;
  totalSteps?: number;
  placeholder?: string;
  ignoreFocusOut = false;
  buttons: readonly unknown[] = [];
  visible = false;
  disposed = false;
  private isBusy = false;
  private readonly hidden = new EventEmitter<void>();
  private readonly triggered = new EventEmitter<unknown>();
  protected readonly accepted = new EventEmitter<void>();
  /** Fires when `busy` turns false or the input is disposed: what it shows has settled. */
  private readonly settledNow = new EventEmitter<void>();
  readonly onDidHide = this.hidden.event;
  readonly onDidTriggerButton = this.triggered.event;
  readonly onDidAccept = this.accepted.event;

  constructor(private readonly shown: (input: FakeQuickInput) => void) {}

  get busy(): boolean {
    return this.isBusy;
  }
  set busy(value: boolean) {
    this.isBusy = value;
    if (!value) this.settledNow.fire();
  }

  show(): void {
    if (this.disposed || this.visible) return;
    this.visible = true;
    this.shown(this);
  }

  hide(): void {
    if (!this.visible) return;
    this.visible = false;
    this.hidden.fire();
  }

  dispose(): void {
    if (this.disposed) return;
    this.hide();
    this.disposed = true;
    this.settledNow.fire();
    for (const emitter of [this.hidden, this.triggered, this.accepted, this.settledNow]) emitter.dispose();
  }

  /** The person presses a button of the title bar (Back). */
  press(button: unknown): void {
    this.triggered.fire(button);
  }

  /** Resolves once nothing is loading any more (or the input is gone). */
  settled(): Promise<void> {
    if (!this.busy || this.disposed) return Promise.resolve();
    return new Promise((resolve) => this.settledNow.event(() => resolve()));
  }

  /** How the input names itself in a failure: its kind and its placeholder or prompt. */
  abstract describe(): string;
}

export class FakeQuickPick<T extends Item = Item> extends FakeQuickInput {
  items: readonly T[] = [];
  activeItems: readonly T[] = [];
  selectedItems: readonly T[] = [];
  value = '';
  matchOnDescription = false;

  /** The person selects `item` and presses Enter. */
  accept(item: T): void {
    this.activeItems = [item];
    this.selectedItems = [item];
    this.accepted.fire();
  }

  /** The items a person can select (separators are not). */
  get choices(): T[] {
    return this.items.filter((item) => item.kind !== QuickPickItemKind.Separator);
  }

  describe(): string {
    return `quick pick "${this.placeholder ?? this.title ?? ''}" [${this.choices.map((item) => item.label).join(' | ')}]`;
  }
}

export class FakeInputBox extends FakeQuickInput {
  value = '';
  prompt?: string;
  password = false;
  validationMessage?: string | { message: string; severity: number };
  private readonly changed = new EventEmitter<string>();
  readonly onDidChangeValue = this.changed.event;

  /** The person replaces the text (one change event, as a paste gives) and presses Enter. */
  type(value: string): void {
    this.value = value;
    this.changed.fire(value);
    this.accepted.fire();
  }

  describe(): string {
    return `input box "${this.prompt ?? this.placeholder ?? this.title ?? ''}"`;
  }
}

export type FakeInput = FakeQuickPick | FakeInputBox;

/** Every input the code shows, in order; `next` hands them to the person one by one. */
export class ShownInputs {
  readonly all: FakeInput[] = [];
  private taken = 0;
  private waiting?: () => void;

  add(input: FakeInput): void {
    this.all.push(input);
    this.waiting?.();
  }

  async next(): Promise<FakeInput> {
    while (this.taken >= this.all.length) await new Promise<void>((resolve) => (this.waiting = resolve));
    this.waiting = undefined;
    return this.all[this.taken++];
  }
}

/** Options for `fakeQuickInputVscode`: settings by full name at each level, trust, VS Code's chat models. */
export interface FakeVscodeOptions {
  settings?: Partial<Record<Level, LevelValues>>;
  trusted?: boolean;
  chatModels?: { vendor: string; id: string; name: string }[];
}

export function fakeQuickInputVscode(options: FakeVscodeOptions = {}) {
  const shown = new ShownInputs();
  const configuration = new FakeConfiguration(options.settings);
  const add = (input: FakeQuickInput) => shown.add(input as FakeInput);
  /** Every notification shown, in order (information and warnings). */
  const messages: string[] = [];
  const createQuickPick = <T extends Item>() => new FakeQuickPick<T>(add);
  const api = {
    Disposable,
    EventEmitter,
    QuickInputButtons,
    QuickPickItemKind,
    InputBoxValidationSeverity,
    ConfigurationTarget,
    window: {
      createQuickPick,
      createInputBox: () => new FakeInputBox(add),
      /** As VS Code's: a quick pick of `items` that resolves with the accepted item, or undefined when hidden. */
      showQuickPick: <T extends Item>(items: T[] | Promise<T[]>, pickOptions: { title?: string } = {}) =>
        new Promise<T | undefined>((resolve) => {
          const pick = createQuickPick<T>();
          pick.title = pickOptions.title;
          pick.busy = true;
          pick.onDidAccept(() => {
            resolve(pick.selectedItems[0]);
            pick.dispose();
          });
          pick.onDidHide(() => resolve(undefined));
          pick.show();
          void Promise.resolve(items).then((loaded) => {
            pick.items = loaded;
            pick.busy = false;
          });
        }),
      showInformationMessage: (message: string) => (messages.push(message), Promise.resolve(undefined)),
      showWarningMessage: (message: string) => (messages.push(message), Promise.resolve(undefined)),
    },
    workspace: {
      isTrusted: options.trusted ?? true,
      getConfiguration: (section?: string) => configuration.getConfiguration(section),
    },
    lm: { selectChatModels: () => Promise.resolve(options.chatModels ?? []) },
  };
  return { api, shown, configuration, messages };
}

/** SecretStorage as a map. */
export class FakeSecretStorage {
  readonly values = new Map<string, string>();
  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.values.get(key));
  }
  store(key: string, value: string): Promise<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }
  delete(key: string): Promise<void> {
    this.values.delete(key);
    return Promise.resolve();
  }
}
