// What the control plane loads when its database has no catalogue yet: the
// curated default file plus the generated inventory (inventory.json, made by
// scripts/generate-inventory.ts; docs/inventory.md).
import { CONTROL_PLANE } from "../changes/audit-log";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { CatalogueFile, CatalogueModelEntry } from "./catalogue-file";
import type { CatalogueService } from "./catalogue-service";

export const INVENTORY_FILE = path.join(import.meta.dirname, "inventory.json");

/**
 * The file with the inventory appended, unless the file brings its own (an
 * operator's file that lists an inventory means exactly that one). Inventory
 * entries whose id is curated are dropped: the curated entry wins, and the load
 * would otherwise refuse a duplicate id if the curated list grew since the
 * inventory was generated.
 */
export function withInventory(file: CatalogueFile, inventory: CatalogueModelEntry[]): CatalogueFile {
  if (file.inventory && file.inventory.length > 0) return file;
  const curated = new Set(file.models.map((model) => model.id));
  return { ...file, inventory: inventory.filter((model) => !curated.has(model.id)) };
}

export const readInventory = (inventoryFile = INVENTORY_FILE): CatalogueModelEntry[] =>
  JSON.parse(readFileSync(inventoryFile, "utf8")) as CatalogueModelEntry[];

/**
 * Loads `defaultCatalogueFile` with the inventory, as the control plane's own action (the audit log's actor);
 * returns what the catalogue service reports. `onlyIfEmpty`: at start-up, keep a catalogue another replica
 * (or an operator) loaded first.
 */
export async function loadDefaultCatalogue(
  catalogue: CatalogueService,
  defaultCatalogueFile: string,
  inventoryFile = INVENTORY_FILE,
  options: { onlyIfEmpty?: boolean } = {},
): Promise<{ revision: string; models: number; curated: number }> {
  const file = JSON.parse(readFileSync(defaultCatalogueFile, "utf8")) as CatalogueFile;
  return catalogue.load(withInventory(file, readInventory(inventoryFile)), defaultCatalogueFile, CONTROL_PLANE, options);
}
