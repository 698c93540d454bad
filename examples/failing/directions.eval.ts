import { directionsEval } from "../directions/directions.js";

/** A asked a passer-by (C), not B: checkpoint 1 fails, checkpoint 3's 5 points are retained. */
export const directionsAskedSomeoneElse = directionsEval(
  "failing.directions.asked-someone-else",
  "A asks C instead of B",
  { asks: "C" },
);

/** A player walked A to the lighthouse: player movement does not count as independent completion. */
export const directionsPlayerMoved = directionsEval(
  "failing.directions.player-moved",
  "A is moved by a player",
  {
    mover: "player",
  },
);

/** A's moves cannot be attributed to its model: the completion gate is unavailable, so the attempt errors. */
export const directionsUnknownDecisionOrigin = directionsEval(
  "failing.directions.unknown-decision-origin",
  "A's movement decisions have unknown origin",
  { decisionOrigin: "unknown" },
);
