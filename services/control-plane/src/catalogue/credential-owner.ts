// Which provider a credential variable belongs to, so that a catalogue path can only name its own
// provider's key: a typo must not send one vendor's key to another (docs/catalogue.md, "Credentials").
import { providerEnvPrefix } from "@gateway/proto/provider-env";

const SUFFIX = "_API_KEY";

/** `<PREFIX>_API_KEY`, or `<PREFIX>_<NAME>_API_KEY` (a second key of the same provider, e.g. `OPENAI_BATCH_API_KEY`). */
function namedFor(variable: string, provider: string): boolean {
  const prefix = providerEnvPrefix(provider);
  if (variable === `${prefix}${SUFFIX}`) return true;
  return variable.startsWith(`${prefix}_`) && variable.endsWith(SUFFIX) && variable.length > prefix.length + 1 + SUFFIX.length;
}

/**
 * The provider among `providers` that `variable` belongs to: the one with the longest name it is named
 * for (`OPENAI_EU_API_KEY` is `openai-eu`'s when the catalogue has that provider, else `openai`'s).
 */
export function credentialOwner(variable: string, providers: Iterable<string>): string | undefined {
  let owner: string | undefined;
  for (const provider of providers) {
    if (namedFor(variable, provider) && (owner === undefined || providerEnvPrefix(provider).length > providerEnvPrefix(owner).length))
      owner = provider;
  }
  return owner;
}
