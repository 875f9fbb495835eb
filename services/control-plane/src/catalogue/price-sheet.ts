// A path's price as a flat sheet: one integer per thing it prices. The catalogue file nests its
// prices (`long_context`, `service_tiers`); comparing two statements of a price (the inventory
// generator's verified rule, `gatewayctl prices check`) is easier on flat keys, each compared alone.
//
// Keys and units:
//   a token rate          "input", "cached_input", ...          nano-USD per million tokens
//   a unit price          "image", "request", "web_search", ... nano-USD each
//   the long-context tier "long_context.above_input_tokens"      tokens
//                         "long_context.<rate>"                  nano-USD per million tokens
//   a service tier        "service_tiers.<tier>.<rate>"          nano-USD per million tokens
import type { Price__Output, ProtoTokenRates__Output } from "@gateway/proto";
import { protoField } from "@gateway/proto/loader-options";
import { formatUsd, parseUsd } from "../billing/money";
import {
  type CataloguePriceEntry,
  type CatalogueTokenRates,
  type PriceComponent,
  rateKey,
  SERVICE_TIERS,
  TOKEN_RATES,
  type TokenRate,
  UNIT_PRICES,
  unitKey,
} from "./catalogue-file";

export type PriceSheet = ReadonlyMap<string, bigint>;

export const LONG_CONTEXT_THRESHOLD = "long_context.above_input_tokens";

/** The catalogue component a key belongs to (`long_context.input` -> `long_context`). */
export const componentOf = (key: string): PriceComponent => key.split(".")[0] as PriceComponent;

/** Within 0.5% of the larger: the sources' "same price" (litellm rounds, OpenRouter has float noise). */
export function withinHalfPercent(a: bigint, b: bigint): boolean {
  const difference = a > b ? a - b : b - a;
  const larger = a > b ? a : b;
  return difference * 1000n <= larger * 5n;
}

/** Two statements of one key agree: a threshold exactly (it decides which rates apply), money within 0.5%. */
export const valuesAgree = (key: string, a: bigint, b: bigint): boolean =>
  key === LONG_CONTEXT_THRESHOLD ? a === b : withinHalfPercent(a, b);

/** A key's value as people read it: a token count, or USD. */
export const describeValue = (key: string, value: bigint): string => (key === LONG_CONTEXT_THRESHOLD ? String(value) : formatUsd(value));

/** The sheet of a catalogue file's price. A text that is not a USD amount is left out: the normalizer refuses it. */
export function sheetOfEntry(entry: CataloguePriceEntry): Map<string, bigint> {
  const sheet = new Map<string, bigint>();
  const put = (key: string, text: string | undefined) => {
    const nano = text === undefined ? undefined : parseUsd(text);
    if (nano !== undefined) sheet.set(key, nano);
  };
  const putRates = (prefix: string, rates: CatalogueTokenRates) => {
    for (const rate of TOKEN_RATES) put(`${prefix}${rate}`, rates[rateKey(rate)]);
  };
  putRates("", entry);
  for (const unit of UNIT_PRICES) put(unit, entry[unitKey(unit)]);
  if (entry.long_context) {
    sheet.set(LONG_CONTEXT_THRESHOLD, BigInt(entry.long_context.above_input_tokens));
    putRates("long_context.", entry.long_context);
  }
  for (const tier of SERVICE_TIERS) {
    const rates = entry.service_tiers?.[tier];
    if (rates) putRates(`service_tiers.${tier}.`, rates);
  }
  return sheet;
}

/** The sheet of a price as the catalogue snapshot carries it (`GET /admin/catalogue`: nano-USD decimal strings, proto field names). */
export function sheetOfSnapshotPrice(price: Partial<Price__Output>): Map<string, bigint> {
  const sheet = new Map<string, bigint>();
  const fields = (message: object) => message as Record<string, string | undefined>;
  const putRates = (prefix: string, rates: Partial<ProtoTokenRates__Output> | null | undefined) => {
    for (const rate of TOKEN_RATES) {
      const value = rates ? fields(rates)[protoField(`${rate}_nano_per_m`)] : undefined;
      if (value !== undefined) sheet.set(`${prefix}${rate}`, BigInt(value));
    }
  };
  putRates("", price);
  for (const unit of UNIT_PRICES) {
    const value = fields(price)[protoField(`${unit}_nano`)];
    if (value !== undefined) sheet.set(unit, BigInt(value));
  }
  if (price.longContext) {
    sheet.set(LONG_CONTEXT_THRESHOLD, BigInt(price.longContext.aboveInputTokens));
    putRates("long_context.", price.longContext.rates);
  }
  for (const tier of SERVICE_TIERS) putRates(`service_tiers.${tier}.`, price.serviceTiers?.[tier]);
  return sheet;
}

/** The token rates under `prefix` as a catalogue rate object ("0.30" texts), in TOKEN_RATES order. */
function rateFields(sheet: PriceSheet, prefix: string): CatalogueTokenRates {
  const fields: CatalogueTokenRates = {};
  for (const rate of TOKEN_RATES) {
    const value = sheet.get(`${prefix}${rate}`);
    if (value !== undefined) fields[rateKey(rate)] = formatUsd(value);
  }
  return fields;
}

/**
 * The catalogue file's price fields for a sheet, always in the same order (token rates, unit prices,
 * long_context, service_tiers) so that the generated file does not depend on the order keys were found.
 */
export function entryFields(sheet: PriceSheet): Omit<CataloguePriceEntry, "verified"> {
  const fields: Omit<CataloguePriceEntry, "verified"> = { ...rateFields(sheet, "") };
  for (const unit of UNIT_PRICES) {
    const value = sheet.get(unit);
    if (value !== undefined) fields[unitKey(unit)] = formatUsd(value);
  }
  const threshold = sheet.get(LONG_CONTEXT_THRESHOLD);
  const longRates = rateFields(sheet, "long_context.");
  if (threshold !== undefined && Object.keys(longRates).length > 0)
    fields.long_context = { above_input_tokens: Number(threshold), ...longRates };
  const tiers: NonNullable<CataloguePriceEntry["service_tiers"]> = {};
  for (const tier of SERVICE_TIERS) {
    const rates = rateFields(sheet, `service_tiers.${tier}.`);
    if (Object.keys(rates).length > 0) tiers[tier] = rates;
  }
  if (Object.keys(tiers).length > 0) fields.service_tiers = tiers;
  return fields;
}

/** Long-context tiers as a source states them: above a prompt size, these rates. */
export interface LongContextTier {
  aboveInputTokens: bigint;
  rates: ReadonlyMap<TokenRate, bigint>;
}

/**
 * Writes a source's long-context tiers into a sheet. The catalogue holds one tier; a source with
 * several (Qwen: above 32k and above 128k) gets one from the lowest threshold at the dearest rate of
 * each kind, so a call is never billed below the upstream's charge.
 */
export function putLongContext(sheet: Map<string, bigint>, tiers: readonly LongContextTier[]): void {
  const priced = tiers.filter((tier) => tier.rates.size > 0);
  if (priced.length === 0) return;
  sheet.set(
    LONG_CONTEXT_THRESHOLD,
    priced.reduce((low, tier) => (tier.aboveInputTokens < low ? tier.aboveInputTokens : low), priced[0]!.aboveInputTokens),
  );
  for (const tier of priced) {
    for (const [rate, value] of tier.rates) {
      const key = `long_context.${rate}`;
      const known = sheet.get(key);
      if (known === undefined || value > known) sheet.set(key, value);
    }
  }
}
