// `gatewayctl prices check`: the catalogue's prices that disagree with the public price lists.
// Every component of every path is compared with what the path's own provider publishes: an
// OpenRouter path with OpenRouter's list, a direct path with the vendor's models.dev and litellm
// entries for its upstream model, a cloud path (bedrock, vertex, azure) with that cloud's entries. The lists are read and mapped exactly as the inventory generator
// reads them (catalogue/price-lists.ts); a figure disagrees beyond 0.5% (a long-context threshold:
// when it differs at all).
import type { Catalogue__Output } from "@gateway/proto";
import type { CatalogueFile, CataloguePriceEntry } from "../catalogue/catalogue-file";
import { cloudFiguresById, cloudOf } from "../catalogue/price-clouds";
import { directVendor, type Figure, nativeFiguresById, openrouterFigureById, type PriceLists } from "../catalogue/price-lists";
import { describeValue, type PriceSheet, sheetOfEntry, sheetOfSnapshotPrice, valuesAgree } from "../catalogue/price-sheet";

/** One priced access path of the catalogue, its price flattened. */
export interface CheckedPath {
  model: string;
  provider: string;
  upstreamModel: string;
  sheet: PriceSheet;
}

export interface Disagreement {
  model: string;
  path: string;
  component: string;
  catalogue: string;
  source: string;
  figure: string;
}

export interface PricesCheck {
  /** Paths compared with at least one figure of the sources. */
  checked: number;
  /** Paths the sources have no figure for (another provider, or a model they do not list). */
  unchecked: number;
  disagreements: Disagreement[];
}

const priced = (price: CataloguePriceEntry | undefined): price is CataloguePriceEntry => price !== undefined;

/** The priced paths of a catalogue file, curated then inventory. */
export function pathsOfFile(file: CatalogueFile): CheckedPath[] {
  return [...file.models, ...(file.inventory ?? [])].flatMap((model) =>
    model.paths
      .filter((path) => priced(path.price))
      .map((path) => ({ model: model.id, provider: path.provider, upstreamModel: path.upstream_model, sheet: sheetOfEntry(path.price!) })),
  );
}

/** The paths of the loaded catalogue, as `GET /admin/catalogue` answers it. */
export function pathsOfSnapshot(snapshot: Catalogue__Output): CheckedPath[] {
  return (snapshot.models ?? []).flatMap((model) =>
    (model.paths ?? []).map((path) => ({
      model: model.id,
      provider: path.provider,
      upstreamModel: path.upstreamModel,
      sheet: sheetOfSnapshotPrice(path.price ?? {}),
    })),
  );
}

/** What the path's own provider publishes for its upstream model. */
export function providerFigures(path: Pick<CheckedPath, "provider" | "upstreamModel">, lists: PriceLists): Figure[] {
  if (path.provider === "openrouter") {
    const figure = openrouterFigureById(path.upstreamModel, lists);
    return figure ? [figure] : [];
  }
  const cloud = cloudOf(path.provider);
  if (cloud) return cloudFiguresById(cloud, path.upstreamModel, lists);
  const vendor = directVendor(path.provider);
  return vendor ? nativeFiguresById(vendor, path.upstreamModel, lists) : [];
}

/** A figure's whole sheet: its input and output price and its components. */
const sheetOfFigure = (figure: Figure): PriceSheet =>
  new Map([["input", figure.price.input], ["output", figure.price.output], ...figure.components]);

/** Every key of every path that a figure of its provider states otherwise. A key no figure states is not a disagreement. */
export function checkPrices(paths: CheckedPath[], lists: PriceLists): PricesCheck {
  const disagreements: Disagreement[] = [];
  let checked = 0;
  for (const path of paths) {
    const figures = providerFigures(path, lists);
    if (figures.length === 0) continue;
    checked++;
    for (const [key, value] of path.sheet) {
      for (const figure of figures) {
        const stated = sheetOfFigure(figure).get(key);
        if (stated === undefined || valuesAgree(key, value, stated)) continue;
        disagreements.push({
          model: path.model,
          path: `${path.provider}:${path.upstreamModel}`,
          component: key,
          catalogue: describeValue(key, value),
          source: figure.label,
          figure: describeValue(key, stated),
        });
      }
    }
  }
  return { checked, unchecked: paths.length - checked, disagreements };
}

const HEADER: Disagreement = {
  model: "model",
  path: "path",
  component: "component",
  catalogue: "catalogue",
  source: "source",
  figure: "sources' figure",
};
const COLUMNS = Object.keys(HEADER) as (keyof Disagreement)[];

/** The disagreements as a table with a header row, columns padded to their widest cell; or a line saying there are none. */
export function formatCheck(result: PricesCheck): string {
  const summary = `${result.checked} paths compared, ${result.unchecked} without a figure in the sources`;
  if (result.disagreements.length === 0) return `no disagreement (${summary})`;
  const rows = [HEADER, ...result.disagreements];
  const widths = COLUMNS.map((column) => Math.max(...rows.map((row) => row[column].length)));
  const lines = rows.map((row) =>
    COLUMNS.map((column, index) => row[column].padEnd(widths[index]!))
      .join("  ")
      .trimEnd(),
  );
  return `${lines.join("\n")}\n\n${result.disagreements.length} disagreements (${summary})`;
}
