// The optional `service` block of a request (docs/routing.md): validated here,
// never forwarded upstream. Unknown keys inside it are ignored.
import { invalidRequest } from "../errors";
import { isTier, type Tier } from "./resolve-model";

export interface ServiceBlock {
  tier: Tier | undefined;
  purpose: string | undefined;
  allow: string[] | undefined;
  route: "fallback" | "pinned" | string[];
}

const invalid = (message: string) => invalidRequest("invalid_service", message);

export function parseServiceBlock(value: unknown): ServiceBlock | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw invalid("service must be an object.");
  const block = value as Record<string, unknown>;
  if (block.tier !== undefined && (typeof block.tier !== "string" || !isTier(block.tier))) {
    throw invalid("service.tier must be one of economy, balanced, quality.");
  }
  if (block.purpose !== undefined && typeof block.purpose !== "string") throw invalid("service.purpose must be a string.");
  if (
    block.allow !== undefined &&
    (!Array.isArray(block.allow) || !block.allow.every((item) => typeof item === "string" && item.length > 0))
  ) {
    throw invalid("service.allow must be an array of non-empty strings.");
  }
  const route = block.route ?? "fallback";
  if (
    !(
      route === "fallback" ||
      route === "pinned" ||
      (Array.isArray(route) && route.length > 0 && route.every((item) => typeof item === "string" && item.length > 0))
    )
  ) {
    throw invalid('service.route must be "fallback", "pinned" or a non-empty array of model ids.');
  }
  return {
    tier: block.tier as Tier | undefined,
    purpose: block.purpose as string | undefined,
    allow: block.allow as string[] | undefined,
    route: route as ServiceBlock["route"],
  };
}
