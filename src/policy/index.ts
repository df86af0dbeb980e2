/**
 * The policy: the settings of every layer read once into one frozen, versioned Policy
 * (PolicyReader over a PolicySource: VS Code's configuration or the settings files), and what it
 * decides for a call (decide). Free of `vscode`; above src/tools, whose rule builders it composes.
 */
export { POLICY_SETTINGS, readPolicyValues, workspaceOnly, type PolicySource, type PolicyValues, type SettingLevels } from './policySettings';
export { acceptAsTheyAre, buildPolicy, PolicyReader, type Policy, type PolicyChoices } from './policy';
export { decide, whereOf, type Decision, type NativeTools, type PolicyCall } from './decide';
export { locateRuleIn, type LocatedRule, type SettingsText, type SettingsTexts } from './locatedRule';
export { agentPolicyFrom, agentPolicyFromSettings } from './agentPolicy';
export { decideNativeTool, nativePolicyOf, nativeToolCall, PolicyUnreadable, type NativeToolCall } from './nativeTools';
