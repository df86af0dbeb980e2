import * as vscode from 'vscode';

// A vscode.lm model that answers from a script, and one @toolbelt turn run on it (through the test seam command).

export type Part = vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart;

/** A LanguageModelChat that answers from a script and keeps what it was sent. */
export class ScriptedChatModel {
  readonly vendor = 'test';
  readonly id = 'scripted';
  readonly name = 'Scripted';
  readonly family = 'scripted';
  readonly version = '1';
  readonly maxInputTokens = 100_000;
  readonly sent: { messages: vscode.LanguageModelChatMessage[]; options: vscode.LanguageModelChatRequestOptions }[] = [];

  constructor(private readonly replies: Part[][]) {}

  sendRequest(messages: vscode.LanguageModelChatMessage[], options: vscode.LanguageModelChatRequestOptions = {}): Promise<{ stream: AsyncIterable<Part>; text: AsyncIterable<string> }> {
    this.sent.push({ messages, options });
    const parts = this.replies.shift() ?? [new vscode.LanguageModelTextPart('(no more replies)')];
    async function* stream() {
      for (const part of parts) yield part;
    }
    async function* text() {
      for (const part of parts) if (part instanceof vscode.LanguageModelTextPart) yield part.value;
    }
    return Promise.resolve({ stream: stream(), text: text() });
  }

  countTokens(): Promise<number> {
    return Promise.resolve(1);
  }
}

export class RecordingStream {
  readonly markdown: string[] = [];
  readonly progress: string[] = [];
  readonly stream = {
    markdown: (value: string | vscode.MarkdownString) => void this.markdown.push(typeof value === 'string' ? value : value.value),
    progress: (value: string) => void this.progress.push(value),
  };
}

export async function toolbeltTurn(model: ScriptedChatModel, prompt: string, token = new vscode.CancellationTokenSource().token): Promise<{ result: vscode.ChatResult; out: RecordingStream }> {
  const out = new RecordingStream();
  const request = { prompt, model, toolInvocationToken: undefined };
  const result = await vscode.commands.executeCommand<vscode.ChatResult>('toolbelt.nativeChat.handleRequest', request, { history: [] }, out.stream, token);
  return { result, out };
}
