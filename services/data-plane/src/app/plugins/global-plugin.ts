// A plugin whose hooks, handlers and decorations apply to the app that
// registers it, not to a scope of its own (fastify's skip-override symbol,
// which fastify-plugin sets).
import type { FastifyPluginAsync } from "fastify";

export function globalPlugin<Options extends Record<string, unknown>>(plugin: FastifyPluginAsync<Options>): FastifyPluginAsync<Options> {
  return Object.assign(plugin, { [Symbol.for("skip-override")]: true });
}
