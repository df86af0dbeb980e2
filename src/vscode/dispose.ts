import type * as vscode from 'vscode';

/** Anything that can be disposed: VS Code's disposables, event emitters, our own services. */
export interface Disposable {
  dispose(): unknown;
}

/**
 * Owns listeners and other disposables, as VS Code's own extensions do: `register` hands one over,
 * `dispose` disposes all of them once, newest first, each failure logged and the rest still
 * disposed. Something registered after dispose is disposed at once, so nothing outlives its owner.
 */
export abstract class Disposables implements vscode.Disposable {
  private readonly owned: Disposable[] = [];
  private disposed = false;

  protected register<T extends Disposable>(item: T): T {
    if (this.disposed) dispose(item);
    else this.owned.push(item);
    return item;
  }

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const item of this.owned.splice(0).reverse()) dispose(item);
  }
}

/** A set of disposables that can be emptied and reused (a view's listeners, renewed each time it is shown). */
export class DisposableStore implements vscode.Disposable {
  private readonly items = new Set<Disposable>();

  add<T extends Disposable>(item: T): T {
    this.items.add(item);
    return item;
  }

  /** Disposes what the store holds now; it can be filled again. */
  clear(): void {
    const items = [...this.items].reverse();
    this.items.clear();
    for (const item of items) dispose(item);
  }

  dispose(): void {
    this.clear();
  }
}

function dispose(item: Disposable): void {
  try {
    void item.dispose();
  } catch (error) {
    console.error('Toolbelt: a listener failed to dispose:', error);
  }
}
