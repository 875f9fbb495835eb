// What is wrong with a catalogue file, entry by entry: each problem names the place (a JSON pointer
// into the file as uploaded), the model of that entry and the fault in words, so an operator (or the
// console) can put it next to the entry. A file with any problem is refused whole.
import { GatewayError } from "@gateway/proto/errors";

export interface CatalogueProblem {
  /** RFC 6901 pointer into the file: `/models/3/paths/0/price/input_per_m`; `` is the whole file. */
  pointer: string;
  /** The id of the model entry the pointer is in, when it is in one that has an id. */
  model: string | null;
  message: string;
}

/** The problems listed in a message: a long list is for the `problems` array, not one line. */
const LISTED_IN_MESSAGE = 5;

/** 400 invalid_request carrying every problem found (`error.problems`, docs/errors.md). */
export class InvalidCatalogueError extends GatewayError {
  constructor(
    readonly problems: CatalogueProblem[],
    message = summary(problems),
  ) {
    super("invalid_request", message);
  }

  override toBody() {
    const body = super.toBody();
    return { error: { ...body.error, problems: this.problems } };
  }
}

function summary(problems: CatalogueProblem[]): string {
  const listed = problems.slice(0, LISTED_IN_MESSAGE).map((problem) => problem.message);
  const more = problems.length - listed.length;
  return more > 0 ? `${listed.join("; ")}; and ${more} more` : listed.join("; ");
}

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
  readonly problems: CatalogueProblem[] = [];

  add(pointer: string, model: string | null, message: string): void {
    this.problems.push({ pointer, model, message });
  }

  /** Throws the refusal when anything was found. */
  refuseIfAny(): void {
    if (this.problems.length > 0) throw new InvalidCatalogueError(this.problems);
  }
}
