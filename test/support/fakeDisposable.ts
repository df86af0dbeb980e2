/** `vscode.Disposable` for code loaded against a fake of VS Code's API (unit tests, the shell bench). */
export class FakeDisposable {
  constructor(private readonly onDispose: () => void) {}
  static from(...items: { dispose(): unknown }[]): FakeDisposable {
    return new FakeDisposable(() => items.forEach((item) => item.dispose()));
  }
  dispose(): void {
    this.onDispose();
  }
}
