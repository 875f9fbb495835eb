// The longest free text the control plane stores from an operator: names, idempotency keys, the
// catalogue's ids and words. Without a bound a name could take the whole body limit (1 MiB, the
// catalogue's 64 MiB) and every listing, log line and console page that shows it.
export const MAX_TEXT_LENGTH = 200;

/** A catalogue price's `source` (a link to the provider's price page, with its anchors): longer than a name. */
export const MAX_SOURCE_LENGTH = 2000;
