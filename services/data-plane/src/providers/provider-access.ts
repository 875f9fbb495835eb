// What a protocol gives a provider (upstream-provider.ts): the adapter for an
// upstream model, and the per-call auth of a cloud. Its own file so the
// clouds' access modules and the provider that calls them import no cycle.
import type { UpstreamAuth } from "./cloud/upstream-auth";
import type { ProviderAdapter } from "./provider-adapter";

export interface ProviderAccess {
  /** A cloud serves several protocols under one name (Claude and Gemini on Vertex): the model's id says which. */
  adapterFor(upstreamModel: string): ProviderAdapter;
  auth?: UpstreamAuth;
}
