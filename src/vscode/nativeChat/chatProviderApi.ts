import type * as vscode from 'vscode';

/*
 * The language-model chat provider API (stable since VS Code 1.104), declared here because the
 * project builds against @types/vscode 1.99. Only what Toolbelt uses; names end in `Shape` so a
 * later @types/vscode bump cannot clash with them. On an older VS Code the API is absent and
 * presence (src/vscode/nativeChat/presence.ts) registers nothing.
 */

export interface ChatInformationShape {
  readonly id: string;
  readonly name: string;
  readonly family: string;
  readonly version: string;
  readonly maxInputTokens: number;
  readonly maxOutputTokens: number;
  readonly tooltip?: string;
  readonly detail?: string;
  readonly capabilities: { readonly toolCalling?: boolean | number; readonly imageInput?: boolean };
}

export interface RequestMessageShape {
  readonly role: vscode.LanguageModelChatMessageRole;
  readonly content: ReadonlyArray<unknown>;
  readonly name: string | undefined;
}

export interface ResponseOptionsShape {
  readonly tools?: readonly vscode.LanguageModelChatTool[];
  readonly toolMode?: vscode.LanguageModelChatToolMode;
}

export type ResponsePartShape = vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart;

export interface ChatProviderShape<T extends ChatInformationShape = ChatInformationShape> {
  readonly onDidChangeLanguageModelChatInformation?: vscode.Event<void>;
  provideLanguageModelChatInformation(options: { readonly silent: boolean }, token: vscode.CancellationToken): vscode.ProviderResult<T[]>;
  provideLanguageModelChatResponse(
    model: T,
    messages: readonly RequestMessageShape[],
    options: ResponseOptionsShape,
    progress: vscode.Progress<ResponsePartShape>,
    token: vscode.CancellationToken,
  ): Thenable<void>;
  provideTokenCount(model: T, text: string | RequestMessageShape, token: vscode.CancellationToken): Thenable<number>;
}
