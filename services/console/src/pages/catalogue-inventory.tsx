// The inventory (hundreds of models, addressable but not curated), searched by words of an id, an
// owner, a provider or an upstream model, a page at a time.
import { useState } from "react";
import { unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { Empty, ErrorNote, Loading, useLoad } from "../components/states";
import { CatalogueModelsTable } from "./catalogue-models-table";

const PAGE = 25;

/** `round` changes when a new catalogue was loaded: the search runs again. */
export function CatalogueInventory({ round }: { round: number }) {
  const client = useClient();
  const [draft, setDraft] = useState("");
  const [search, setSearch] = useState({ q: "", offset: 0 });
  const { loaded } = useLoad(
    async () =>
      unwrap(
        await client.GET("/admin/catalogue/models", {
          params: { query: { curated: false, q: search.q || undefined, limit: PAGE, offset: search.offset } },
        }),
      ),
    [client, search.q, search.offset, round],
  );

  return (
    <section aria-labelledby="inventory-title">
      <h2 id="inventory-title">Inventory</h2>
      <form
        className="fields"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch({ q: draft.trim(), offset: 0 });
        }}
      >
        <label>
          Search the inventory
          <input
            type="search"
            name="q"
            placeholder="llama 3.1, openrouter, mistral…"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
          />
        </label>
        <div className="actions">
          <button type="submit">Search</button>
        </div>
        <p className="hint">Every word must be in the model's id, its owner, a provider or an upstream model.</p>
      </form>
      {loaded.state === "loading" && <Loading what="the inventory" />}
      {loaded.state === "error" && <ErrorNote message={loaded.message} />}
      {loaded.state === "ready" && loaded.data.total === 0 && (
        <Empty>{search.q ? `No inventory model matches “${search.q}”.` : "The inventory is empty."}</Empty>
      )}
      {loaded.state === "ready" && loaded.data.total > 0 && (
        <>
          <p className="count" role="status" data-field="inventory_count">
            {search.offset + 1}–{search.offset + loaded.data.data.length} of {loaded.data.total}
            {search.q ? ` matching “${search.q}”` : " inventory models"}
          </p>
          <CatalogueModelsTable models={loaded.data.data} caption="Inventory models found" />
          {/* Pages by offset, not components/paging.tsx's newest-first cursors: the inventory is in the file's order. */}
          <nav className="paging" aria-label="Pages of inventory models">
            <button
              type="button"
              disabled={search.offset === 0}
              onClick={() => setSearch({ ...search, offset: Math.max(0, search.offset - PAGE) })}
            >
              Previous {PAGE}
            </button>
            <button
              type="button"
              disabled={search.offset + PAGE >= loaded.data.total}
              onClick={() => setSearch({ ...search, offset: search.offset + PAGE })}
            >
              Next {PAGE}
            </button>
          </nav>
        </>
      )}
    </section>
  );
}
