// What is wrong with a catalogue file, entry by entry: each problem names the place (a JSON pointer
// into the file as uploaded), the model of that entry and the fault in words, so an operator (or the
// console) can put it next to the entry. A file with any problem is refused whole.
import { echo, echoList } from "@gateway/proto/echo";
import { GatewayError } from "@gateway/proto/errors";

export interface CatalogueProblem {
  /** RFC 6901 pointer into the file: `/models/3/paths/0/price/input_per_m`; `` is the whole file. */
  pointer: string;
  /** The id of the model entry the pointer is in, when it is in one that has an id. */
  model: string | null;
  message: string;
}

/** The problems listed in a message: a long list is for the `problems` array, not one line (which stays short). */
export const LISTED_IN_MESSAGE = 3;
/** Problems an answer lists at most: a file broken everywhere gets the first ones and their count. */
export const MAX_PROBLEMS = 1000;
/** A problem's fields quote the file (ids, keys, amounts): cut, as every error message cuts quoted input. */
const QUOTED_LIMIT = 400;

/** A problem, its quoted parts cut. */
export const problem = (pointer: string, model: string | null, message: string): CatalogueProblem => ({
  pointer: echo(pointer, QUOTED_LIMIT),
  model: model === null ? null : echo(model, QUOTED_LIMIT),
  message: echo(message, QUOTED_LIMIT),
});

/** 400 invalid_request carrying every problem found (`error.problems`, docs/errors.md). */
export class InvalidCatalogueError extends GatewayError {
  constructor(found: CatalogueProblem[], message = summary(found.map((problem) => problem.message))) {
    super(
      "invalid_request",
      found.length > MAX_PROBLEMS ? `${message} (${found.length} problems; the first ${MAX_PROBLEMS} are listed)` : message,
    );
    this.problems = found.slice(0, MAX_PROBLEMS);
  }

  readonly problems: CatalogueProblem[];

  override toBody() {
    const body = super.toBody();
    return { error: { ...body.error, problems: this.problems } };
  }
}

/** The first few items in one line, each cut to the echo limit, and how many more there are. */
export const summary = (items: string[], separator = "; "): string => echoList(items, LISTED_IN_MESSAGE, separator);

/** The model id of the entry a pointer is in (`/models/3/...`, `/inventory/12/...`), if it has one. */
export function modelAt(file: unknown, pointer: string): string | null {
  const [, list, index] = pointer.split("/");
  if ((list !== "models" && list !== "inventory") || index === undefined) return null;
  const entries = (file as Record<string, unknown> | null)?.[list];
  const id = Array.isArray(entries) ? (entries[Number(index)] as { id?: unknown } | undefined)?.id : undefined;
  return typeof id === "string" ? id : null;
}

/** Where problems are written as they are found. */
export class ProblemList {
  /** `problems`: those found before (the schema's). */
  constructor(readonly problems: CatalogueProblem[] = []) {}

  add(pointer: string, model: string | null, message: string): void {
    this.problems.push(problem(pointer, model, message));
  }

  /** Throws the refusal when anything was found. */
  refuseIfAny(): void {
    if (this.problems.length > 0) throw new InvalidCatalogueError(this.problems);
  }
}
