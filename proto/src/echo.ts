// Client input quoted in an error message (a model name, a path, an id) is cut to a few hundred
// characters: a 1 MiB model name was echoed in full in its 400 (issue 19, item 6). One helper, both planes.

/** Characters of client input an error message quotes at most. */
export const ECHO_LIMIT = 200;

/** `text` as an error message may quote it: whole when short, else its start and how much was left out. */
export function echo(text: string, limit = ECHO_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}... (${text.length - limit} more characters)`;
}

/** Entries of a list an error message names at most. */
export const LISTED_LIMIT = 10;

/**
 * A list as an error message may name it: its first `listed` items, each cut as `echo` cuts (at
 * `itemLimit`), and how many more there are. A list built from a request must never make a message
 * as long as the request.
 */
export function echoList(items: readonly string[], listed = LISTED_LIMIT, separator = "; ", itemLimit = ECHO_LIMIT): string {
  const shown = items.slice(0, listed).map((item) => echo(item, itemLimit));
  const more = items.length - shown.length;
  return more > 0 ? `${shown.join(separator)}${separator}and ${more} more` : shown.join(separator);
}
