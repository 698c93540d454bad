import { errorMessage, NiceevalError } from "../errors.js";
import { type AttemptRow, type DecodeContext, undecodableCell } from "./sqlite/codec.js";

/** Where a row that does not decode is: the store as it is named to the user, and the run. */
export interface RowPlace {
  store: string;
  runId: string;
  runName?: string | undefined;
  evalId: string;
}

/**
 * The error for a stored attempt that does not decode (a file damaged or edited by hand): it
 * names the store, the run, the case and the cell, and what to do. Built once decoding threw,
 * so the rows that decode are never checked.
 */
export function damagedRowError(
  place: RowPlace,
  row: AttemptRow,
  context: DecodeContext,
  error: unknown,
): NiceevalError {
  const cell = undecodableCell(row, context);
  const run = `run ${place.runId}${place.runName === undefined ? "" : ` (${place.runName})`}`;
  const where = `${run}, eval "${place.evalId}", case "${row.case_id}", trial ${row.trial + 1}`;
  const what = cell ? `column ${cell.column}: ${cell.why}` : errorMessage(error);
  return new NiceevalError(
    "STORE_DAMAGED_ROW",
    `the store ${place.store} holds an attempt that cannot be read, damaged or edited by hand: ${where}, ${what}. Undo the edit or restore the store from a copy; its other runs still read, and running these evals again stores a run to use in place of this one.`,
    { cause: error },
  );
}
