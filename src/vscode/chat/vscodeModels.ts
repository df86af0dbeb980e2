import * as vscode from 'vscode';
import { ChatSetupError } from '../../chat/chatController';
import { VsCodeModelProvider } from '../nativeChat/vscodeModelProvider';
import { VENDOR } from '../nativeChat/toolbeltModelProvider';

/** How `toolbelt.model` names a model of VS Code's: `<vendor>/<id>`, e.g. `copilot/gpt-4o`. */
export const modelIdOf = (model: vscode.LanguageModelChat): string => `${model.vendor}/${model.id}`;

/** The chat models VS Code offers, without Toolbelt's own vendor (which would call back into this chat). */
export async function otherChatModels(): Promise<vscode.LanguageModelChat[]> {
  return (await vscode.lm.selectChatModels()).filter((model) => model.vendor !== VENDOR);
}

/** `toolbelt.provider: "vscode"`: the model `toolbelt.model` names (the first one when it is empty) as a Toolbelt provider. */
export async function vscodeModelProvider(setting: string): Promise<VsCodeModelProvider> {
  const models = await otherChatModels();
  const model = setting ? models.find((candidate) => modelIdOf(candidate) === setting) : models[0];
  if (model) return new VsCodeModelProvider(model);
  const offered = models.map(modelIdOf);
  throw new ChatSetupError(
    setting
      ? `VS Code offers no chat model "${setting}". ${offered.length ? `It offers: ${offered.join(', ')}.` : 'It offers none now: sign in to a model provider in VS Code, or switch Toolbelt to another provider.'}`
      : 'VS Code offers no chat model now: sign in to a model provider in VS Code (e.g. GitHub Copilot), or switch Toolbelt to another provider.',
    'switchModel',
  );
}
