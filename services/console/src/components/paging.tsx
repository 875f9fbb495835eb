// Paging back through a listing the admin API serves newest first with a `before` cursor: it asks for one
// more than a page to know whether an older page exists, and keeps the cursors of the pages seen for "Newer".
import { useState } from "react";

export interface Paging {
  /** The cursor of the page shown (undefined: the newest). */
  before: string | undefined;
  /** Page number, from 1. */
  number: number;
  older: (cursor: string) => void;
  newer: () => void;
}

export function usePaging(): Paging {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  return {
    before: cursors.at(-1),
    number: cursors.length,
    older: (cursor) => setCursors((seen) => [...seen, cursor]),
    newer: () => setCursors((seen) => (seen.length > 1 ? seen.slice(0, -1) : seen)),
  };
}

/** A page of `size` from an answer of up to size + 1 items, and whether there are older ones. */
export function pageOf<T>(items: T[], size: number): { items: T[]; hasOlder: boolean } {
  return { items: items.slice(0, size), hasOlder: items.length > size };
}

/** Newer / Older buttons under a page of `what`; Older pages back from `oldest` (its cursor). */
export function PagingButtons({ paging, what, oldest }: { paging: Paging; what: string; oldest: string | undefined }) {
  return (
    <nav className="paging" aria-label={`Pages of ${what}`}>
      <button type="button" disabled={paging.number === 1} onClick={paging.newer}>
        Newer {what}
      </button>
      <span>Page {paging.number}</span>
      <button type="button" disabled={oldest === undefined} onClick={() => oldest !== undefined && paging.older(oldest)}>
        Older {what}
      </button>
    </nav>
  );
}
