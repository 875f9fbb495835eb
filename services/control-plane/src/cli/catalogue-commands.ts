// gatewayctl's catalogue commands: `catalogue load|show`, and `prices check` against the public
// price lists (prices-check.ts).
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Catalogue__Output } from "@gateway/proto";
import { GatewayError } from "@gateway/proto/errors";
import type { CatalogueFile } from "../catalogue/catalogue-file";
import { normalizeCatalogue } from "../catalogue/normalize-catalogue";
import { readPriceLists } from "../catalogue/price-lists";
import { call } from "./admin-connection";
import { type Command, need } from "./cli-command";
import { CliError } from "./cli-error";
import { checkPrices, formatCheck, type PricesCheck, pathsOfFile, pathsOfSnapshot } from "./prices-check";

function readJsonFile(file: string, shown: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new CliError(`cannot read ${shown}: ${(error as Error).message}`);
  }
}

/** A catalogue file the gateway would load (its prices readable): the check compares only what could be billed. */
function validCatalogue(document: unknown, shown: string): CatalogueFile {
  try {
    normalizeCatalogue(document as CatalogueFile);
    return document as CatalogueFile;
  } catch (error) {
    if (error instanceof GatewayError || error instanceof TypeError)
      throw new CliError(`${shown} is not a catalogue file: ${error.message}`);
    throw error;
  }
}

export const CATALOGUE_COMMANDS: Record<string, Command> = {
  "catalogue load": {
    run: ({ target, values, command, fromCwd }) => {
      const file = need(values.file, "file", command);
      return call(
        target(),
        "PUT",
        `/admin/catalogue?source=${encodeURIComponent(path.basename(file))}${values["dry-run"] ? "&dry_run=true" : ""}`,
        readJsonFile(fromCwd(file), file),
      );
    },
    human: (result) => {
      const loaded = result as Record<string, unknown>;
      if (loaded.dry_run) return `valid, nothing loaded: it would give ${loaded.models} models (${loaded.curated} curated)`;
      return `catalogue revision ${loaded.revision}: ${loaded.models} models (${loaded.curated} curated)`;
    },
  },
  "catalogue show": {
    run: ({ target }) => call(target(), "GET", "/admin/catalogue"),
  },
  "prices check": {
    run: async ({ target, values, command, fromCwd }) => {
      const sources = need(values.sources, "sources", command);
      let lists: ReturnType<typeof readPriceLists>;
      try {
        lists = readPriceLists(fromCwd(sources));
      } catch (error) {
        throw new CliError(`cannot read the price lists in ${sources}: ${(error as Error).message}`);
      }
      const paths = values.file
        ? pathsOfFile(validCatalogue(readJsonFile(fromCwd(values.file), values.file), values.file))
        : pathsOfSnapshot((await call(target(), "GET", "/admin/catalogue")) as Catalogue__Output);
      const check = checkPrices(paths, lists);
      if (check.disagreements.length > 0) process.exitCode = 1;
      return check;
    },
    human: (result) => formatCheck(result as PricesCheck),
  },
};
