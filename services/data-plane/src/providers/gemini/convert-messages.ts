// OpenAI chat messages as Gemini `contents` plus a `systemInstruction`.
// Gemini has one system instruction per request, so every system/developer
// message goes there, in order. Assistant turns become "model" turns; tool
// results become `functionResponse` parts of a "user" turn, and consecutive
// tool messages share one turn because Gemini pairs a model turn's function
// calls with the function responses of the next turn.
import { audioPart, inlinePartFromDataUrl, mediaPartFromUrl } from "./media";
import { isObject, type GeminiContent, type GeminiPart, type JsonObject } from "./wire-types";

export interface ConvertedMessages {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
}

export function convertMessages(messages: unknown): ConvertedMessages {
  const contents: GeminiContent[] = [];
  const systemParts: GeminiPart[] = [];
  // Tool-call id -> function name, from the assistant turns seen so far: Gemini
  // names a function response, OpenAI points at the call's id. Later calls
  // reusing an id (ids are only unique per answer) overwrite earlier ones.
  const callNames = new Map<string, string>();
  let previousWasTool = false;

  for (const [index, message] of (Array.isArray(messages) ? messages : []).entries()) {
    if (!isObject(message)) continue;
    const isTool = message.role === "tool";
    switch (message.role) {
      case "system":
      case "developer":
        systemParts.push(...textParts(message.content));
        break;
      case "user":
        push(contents, "user", userParts(message.content, index));
        break;
      case "assistant":
        push(contents, "model", assistantParts(message, callNames));
        break;
      case "tool": {
        const part = functionResponsePart(message, callNames);
        const last = contents.at(-1);
        if (previousWasTool && last?.role === "user") last.parts.push(part);
        else push(contents, "user", [part]);
        break;
      }
      default:
        break; // unknown roles (and the deprecated "function" role) are dropped like unknown fields
    }
    previousWasTool = isTool;
  }

  return systemParts.length > 0 ? { contents, systemInstruction: { parts: systemParts } } : { contents };
}

/** Gemini refuses turns without parts, so a message that translates to nothing is left out. */
function push(contents: GeminiContent[], role: GeminiContent["role"], parts: GeminiPart[]): void {
  if (parts.length > 0) contents.push({ role, parts });
}

/** Text of a string or an array of text (and refusal) parts; Gemini refuses empty text parts, so none are made. */
function textParts(content: unknown): GeminiPart[] {
  if (typeof content === "string") return content === "" ? [] : [{ text: content }];
  if (!Array.isArray(content)) return [];
  const parts: GeminiPart[] = [];
  for (const part of content) {
    if (!isObject(part)) continue;
    const text = part.type === "refusal" ? part.refusal : part.text;
    if ((part.type === "text" || part.type === "refusal") && typeof text === "string" && text !== "") parts.push({ text });
  }
  return parts;
}

function userParts(content: unknown, index: number): GeminiPart[] {
  if (!Array.isArray(content)) return textParts(content);
  const parts: GeminiPart[] = [];
  for (const [partIndex, part] of content.entries()) {
    if (!isObject(part)) continue;
    if (part.type === "text") {
      parts.push(...textParts([part]));
    } else if (part.type === "image_url") {
      // `image_url` is {url, detail?}; some clients send the URL string itself.
      const url = isObject(part.image_url) ? part.image_url.url : part.image_url;
      if (typeof url === "string" && url !== "") parts.push(mediaPartFromUrl(url, `messages[${index}].content[${partIndex}].image_url`));
    } else if (part.type === "input_audio" && isObject(part.input_audio) && typeof part.input_audio.data === "string") {
      parts.push(audioPart(part.input_audio.data, typeof part.input_audio.format === "string" ? part.input_audio.format : ""));
    } else if (part.type === "file" && isObject(part.file) && typeof part.file.file_data === "string") {
      // Only inline file data can be sent; an OpenAI `file_id` means nothing to Gemini.
      const inline = inlinePartFromDataUrl(part.file.file_data);
      if (inline) parts.push(inline);
    }
  }
  return parts;
}

function assistantParts(message: JsonObject, callNames: Map<string, string>): GeminiPart[] {
  const parts = textParts(message.content);
  // Images an earlier answer generated (OpenRouter's `message.images`) go back
  // to the model, so "now make it blue" can edit them.
  if (Array.isArray(message.images)) {
    for (const image of message.images) {
      const url = isObject(image) && isObject(image.image_url) ? image.image_url.url : undefined;
      const inline = typeof url === "string" ? inlinePartFromDataUrl(url) : undefined;
      if (inline) parts.push(inline);
    }
  }
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isObject(call) || !isObject(call.function) || typeof call.function.name !== "string") continue;
      const name = call.function.name;
      if (typeof call.id === "string") callNames.set(call.id, name);
      // Ids are not sent back: ours are made up by the adapter when Gemini gave none, and Gemini matches calls by name and order.
      parts.push({ functionCall: { name, args: parseArguments(call.function.arguments) } });
    }
  }
  return parts;
}

/** OpenAI arguments are a JSON string; Gemini `args` is a JSON object (a protobuf Struct). */
function parseArguments(value: unknown): Record<string, unknown> {
  if (isObject(value)) return value;
  if (typeof value !== "string") return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function functionResponsePart(message: JsonObject, callNames: Map<string, string>): GeminiPart {
  const id = typeof message.tool_call_id === "string" ? message.tool_call_id : "";
  // Without the matching call (a truncated history) the id is the only name there is; Gemini will say if it minds.
  const name = callNames.get(id) ?? (typeof message.name === "string" ? message.name : id);
  const text =
    typeof message.content === "string"
      ? message.content
      : textParts(message.content)
          .map((part) => part.text)
          .join("");
  // `response` must be a JSON object: a tool's JSON object result is passed as
  // is, anything else (plain text, arrays, numbers) is wrapped.
  let response: Record<string, unknown> = { content: text };
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) response = parsed;
  } catch {
    // not JSON: keep the text
  }
  return { functionResponse: { name, response } };
}
