/** The SDK module's shape, for type positions only. */
export type SdkClientModule = typeof import('./sdkClient');

/** Loads the MCP SDK when the first server starts; never at activation. */
export function loadSdkClient(): Promise<SdkClientModule> {
  return import('./sdkClient');
}
