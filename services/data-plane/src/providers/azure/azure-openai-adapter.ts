// Azure OpenAI: OpenAI's own wire (requests, answers, streams, usage) at
// Azure's paths, so the OpenAI-compatible adapter does the translating and
// this one only places its calls (azure-paths.ts), authenticates them with the
// resource's `api-key` when one is configured (else the Entra ID bearer of
// entra-token-auth.ts is added at send time), keeps Azure's content-filter
// verdicts out of translated answers (content-filter-fields.ts) and reads
// Azure's error codes. The body keeps `model` (the deployment name) on both
// forms: the v1 form needs it, the deployments form ignores it.
import type { UsageRecord } from "../../billing/pricing";
import type { UpstreamErrorCategory } from "../../errors";
import { OpenAiCompatibleAdapter } from "../openai-compatible/openai-compatible-adapter";
import type {
  Endpoint,
  NativeCodec,
  ProviderAdapter,
  RequestContext,
  ResponseContext,
  StreamTranslator,
  UpstreamCall,
  UpstreamHeaders,
} from "../provider-adapter";
import { type AzureTarget, azurePath } from "./azure-paths";
import { classifyAzureError } from "./classify-azure-error";
import { VerdictFreeStream, withoutFilterResults } from "./content-filter-fields";

export interface AzureAdapterOptions extends AzureTarget {
  /** The resource's key (<NAME>_API_KEY), sent as `api-key`; absent, calls carry an Entra ID token instead. */
  apiKey?: string;
  /** Request fields beyond OpenAI's the deployments accept (<NAME>_EXTRA_FIELDS). */
  extraFields?: readonly string[];
}

/** The client dialects an Azure deployment speaks as its own; the Responses API only on the v1 form. */
const NATIVE_DIALECTS = ["openai-chat", "openai-embeddings", "openai-responses"] as const;

export class AzureOpenAiAdapter implements ProviderAdapter {
  // The body is OpenAI's: the hold counts what OpenAI's does (billing/worst-case.ts).
  readonly protocol = "openai-compatible";
  private readonly openai: OpenAiCompatibleAdapter;
  private readonly codecs = new Map<string, NativeCodec>();

  constructor(private readonly options: AzureAdapterOptions) {
    this.openai = new OpenAiCompatibleAdapter(options.extraFields, options.apiForm === "v1");
    for (const dialect of NATIVE_DIALECTS) {
      const codec = this.openai.native(dialect);
      if (codec)
        this.codecs.set(dialect, {
          ...codec,
          call: (body, context, maxTokens) => this.placed(codec.call(body, keyless(context), maxTokens), context),
        });
    }
  }

  native(dialect: string): NativeCodec | undefined {
    return this.codecs.get(dialect);
  }

  /** Chat and embeddings deployments alike. */
  supports(): boolean {
    return true;
  }

  request(endpoint: Endpoint, body: Record<string, unknown>, context: RequestContext): UpstreamCall {
    return this.placed(this.openai.request(endpoint, body, keyless(context)), context);
  }

  /** Translated answers only (an OpenAI chat client's is the native codec's, verdicts included). */
  response(endpoint: Endpoint, json: unknown, _context?: ResponseContext): Record<string, unknown> {
    const answer = this.openai.response(endpoint, json);
    return endpoint === "chat" ? withoutFilterResults(answer) : answer;
  }

  usage(endpoint: Endpoint, json: unknown): UsageRecord | undefined {
    return this.openai.usage(endpoint, json);
  }

  stream(_context?: ResponseContext): StreamTranslator {
    return new VerdictFreeStream(this.openai.stream());
  }

  /** From the body's codes; Azure names nothing in its headers that the status does not already say. */
  classifyError(body: unknown, _headers?: UpstreamHeaders): UpstreamErrorCategory | undefined {
    return classifyAzureError(body);
  }

  /** The OpenAI call moved to Azure's path, with the resource's key when it has one. */
  private placed(call: UpstreamCall, context: RequestContext): UpstreamCall {
    const headers = this.options.apiKey ? { ...call.headers, "api-key": this.options.apiKey } : call.headers;
    return { ...call, path: azurePath(this.options, call.path, context.upstreamModel), headers };
  }
}

/** Azure's key goes in `api-key`, never as OpenAI's bearer: the OpenAI adapter is given none. */
const keyless = (context: RequestContext): RequestContext => (context.apiKey === undefined ? context : { ...context, apiKey: undefined });
