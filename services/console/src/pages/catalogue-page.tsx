// The catalogue: the loaded revision, the curated models with their tiers, purposes, access paths,
// prices and verified flags, the inventory searched, and a catalogue file's upload.
import { useState } from "react";
import { unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { Time } from "../components/figures";
import { Empty, ErrorNote, Loading, useLoad } from "../components/states";
import { CatalogueInventory } from "./catalogue-inventory";
import { CatalogueModelsTable } from "./catalogue-models-table";
import { CatalogueUploadForm } from "./catalogue-upload-form";

/** More than any curated list: the curated models are shown on one page. */
const CURATED_PAGE = 200;

export function CataloguePage() {
  const client = useClient();
  // Bumped by a load: the curated list, the revision and the inventory are read again.
  const [round, setRound] = useState(0);
  const { loaded } = useLoad(
    async () => unwrap(await client.GET("/admin/catalogue/models", { params: { query: { curated: true, limit: CURATED_PAGE } } })),
    [client, round],
  );
  const revision = loaded.state === "ready" ? loaded.data.revision : undefined;

  return (
    <>
      <h1>Catalogue</h1>
      {revision && (
        <p className="revision" data-field="revision">
          Revision <strong data-field="revision_id">{revision.id}</strong>, loaded <Time iso={revision.loaded_at} /> from{" "}
          <span data-field="revision_source">{revision.source}</span>.
        </p>
      )}
      <section aria-labelledby="curated-title">
        <h2 id="curated-title">Curated models</h2>
        {loaded.state === "loading" && <Loading what="the curated models" />}
        {loaded.state === "error" && <ErrorNote message={loaded.message} />}
        {loaded.state === "ready" && loaded.data.total === 0 && <Empty>No curated models: load a catalogue file below.</Empty>}
        {loaded.state === "ready" && loaded.data.total > 0 && (
          <>
            <p className="hint">
              {loaded.data.total} curated models, in the file's order; ✓ marks a price checked against the provider's own list. Amounts show
              their exact nano-USD on hover.
            </p>
            <CatalogueModelsTable models={loaded.data.data} caption="Curated models" />
          </>
        )}
      </section>
      <CatalogueUploadForm revision={revision?.id} onLoaded={() => setRound((n) => n + 1)} />
      <CatalogueInventory round={round} />
    </>
  );
}
