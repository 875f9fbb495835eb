// The engine's side of affinity (docs/routing.md, "Affinity"): before planning, which conversation a
// request is a turn of and its live pin; after the answer, the pin moved to (or kept on) the target that
// answered, for as long as the provider keeps the prompt's cache: an hour when the turn asked for
// 1-hour cache writes, else the default.
import type { TraceSpan } from "@gateway/proto/tracing";
import { bodyMarks } from "../billing/hold-estimate";
import type { ClientRequest } from "../dialects/client-dialect";
import type { CounterFamily } from "../metric-families";
import type { Pin, PinStore } from "../routing/affinity-pins";
import { type Conversation, conversationOf } from "../routing/conversation-key";
import type { Turn } from "../routing/route-request";
import type { Call } from "./call";

export interface AffinitySettings {
  /** How long a pin lives after a turn; 0 turns affinity off. */
  pinTtlMs: number;
  /** The same for a turn that asked for 1-hour cache writes. */
  hourPinTtlMs: number;
}

export interface ConversationTurn extends Turn {
  conversation: Conversation;
}

export class CallAffinity {
  constructor(
    private readonly pins: PinStore,
    private readonly settings: AffinitySettings,
    /** By outcome (new, kept, broken) and reason. */
    private readonly turns: CounterFamily,
  ) {}

  /** The conversation a request is a turn of, with its pin; undefined with affinity off or for no conversation. */
  async turnOf(
    projectId: string,
    dialect: string,
    request: ClientRequest,
    headers: Readonly<Record<string, unknown>>,
    span?: TraceSpan,
  ): Promise<ConversationTurn | undefined> {
    if (this.settings.pinTtlMs === 0) return undefined;
    const conversation = conversationOf(projectId, dialect, request, headers);
    if (!conversation) return undefined;
    span?.set("gateway.affinity.source", conversation.source);
    return { conversation, pin: await this.pins.get(conversation.key) };
  }

  /**
   * The call was answered: its conversation is pinned to the target that answered, and the key group
   * (provider account) whose key did, and the turn counted.
   */
  answered(call: Call): void {
    const { conversation } = call;
    const affinity = call.plan.trace.affinity;
    if (!conversation || !affinity) return;
    const group = call.key?.group;
    // The pinned target went first; another answered only if it failed (or the balance moved the call on).
    const keptTarget = affinity.state === "kept" && call.target === call.plan.targets[0];
    if (affinity.state === "kept" && !keptTarget) {
      affinity.state = "broken";
      affinity.reason = "failed";
    } else if (keptTarget && call.plan.pinnedGroup !== undefined && group !== call.plan.pinnedGroup) {
      // No key of the pinned account could serve: another account's cache starts here.
      affinity.state = "broken";
      affinity.reason = "key_group";
    }
    this.turns.series(affinity.state, affinity.reason ?? "").inc();
    call.span.set("gateway.affinity", affinity.reason ? `${affinity.state}: ${affinity.reason}` : affinity.state);
    const { model, path } = call.target;
    const ttlMs = hourLongCache(call.upstream.body) ? this.settings.hourPinTtlMs : this.settings.pinTtlMs;
    const pin: Pin = { model: model.id, provider: path.provider, upstreamModel: path.upstreamModel, ...(group ? { group } : {}) };
    // A pin that gains its group (set before groups were pinned) is written as a new one.
    this.pins.put(conversation.key, pin, ttlMs, affinity.state === "kept" && call.plan.pinnedGroup === group);
  }
}

/** Whether the turn asked for 1-hour cache writes; a body without `"ttl":"1h"` cannot have (most bodies: not scanned). */
const hourLongCache = (body: string) => body.includes('"ttl":"1h"') && bodyMarks(body).cacheWrite === "1h";
