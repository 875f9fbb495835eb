// A provider's environment prefix: the data plane reads <PREFIX>_BASE_URL, <PREFIX>_API_KEY and the rest
// under it, and the control plane checks a catalogue path's credentials against it. One rule for both.

/** `my-vendor` -> `MY_VENDOR` (so `MY_VENDOR_BASE_URL`, `MY_VENDOR_API_KEY`). */
export const providerEnvPrefix = (provider: string): string => provider.toUpperCase().replaceAll("-", "_");
