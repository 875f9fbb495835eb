// What the gateway refuses on every path: Anthropic's server tools and stored
// files. Both run under the operator's provider key, not the client's: server
// tools (web search, web fetch, code execution, MCP connectors, containers)
// carry per-call fees the gateway does not bill, and a `file_id` names a file
// of the operator's provider account (provider-storage.ts). Anthropic-defined client tools (bash,
// text editor, computer use, memory: the client runs them) stay native-only.
import { invalidRequest } from "../../errors";
import { storedFileRefused } from "../provider-storage";
import { isRecord, type JsonObject } from "./json-fields";

/** Tool type prefixes of the tools Anthropic defines but the client executes (every other non-custom type is a server tool). */
const CLIENT_TOOL_PREFIXES = ["bash_", "text_editor_", "computer_", "memory_"] as const;

export const isAnthropicClientTool = (type: string): boolean => CLIENT_TOOL_PREFIXES.some((prefix) => type.startsWith(prefix));

const SERVER_TOOLS_REASON =
  "The gateway serves client tools only: server tools are priced per call by the provider, which the gateway does not bill. Define the tool as a custom tool and run it in your client.";

export const serverToolRefused = (path: string, what: string) =>
  invalidRequest("unsupported_input", `${path}: ${what} is not supported. ${SERVER_TOOLS_REASON}`);

/** `mcp_servers` and `container` at the top level: MCP connectors and code execution containers, both server-side. */
export function refuseServerFields(body: JsonObject): void {
  if (body.mcp_servers !== undefined && body.mcp_servers !== null) throw serverToolRefused("mcp_servers", "an MCP connector");
  if (body.container !== undefined && body.container !== null) throw serverToolRefused("container", "a code execution container");
}

/** A block (or its `source`) that refers to a stored file: an image or document of source type file, a container upload, ... */
export function refuseStoredFile(block: JsonObject, at: string): void {
  if (block.file_id !== undefined) throw storedFileRefused(at);
  if (!isRecord(block.source)) return;
  const source = block.source;
  if (source.type === "file" || source.file_id !== undefined) throw storedFileRefused(`${at}.source`);
  // A document of source type content holds blocks of its own.
  if (Array.isArray(source.content))
    source.content.forEach((inner, index) => {
      if (isRecord(inner)) refuseStoredFile(inner, `${at}.source.content.${index}`);
    });
}
