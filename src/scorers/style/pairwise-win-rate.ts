/** Which side a pairwise judge preferred, as the sides were shown to it. */
export type PairwiseWinner = "a" | "b" | "tie";

/**
 * One pairwise judgment. `winner` is reported as shown to the judge: in the "swapped" order the
 * judge saw the original b in position a, so a swapped "a" is a win for the original b.
 */
export interface PairwiseVerdict {
  /** The compared item (the pair); required so orders and judges can be joined per item. */
  item: string;
  /** Who judged; verdicts without one count as a single unnamed judge. */
  judge?: string | undefined;
  /** "normal": original a shown as a; "swapped": original b shown as a. */
  order: "normal" | "swapped";
  winner: PairwiseWinner;
}

/** What {@link pairwiseWinRate} returns. */
export interface PairwiseWinRateResult {
  /** Order-corrected rate at which the original a wins (a tie counts half); null without verdicts. */
  winRate: number | null;
  /**
   * Cohen's kappa between the two most represented judges over the items both judged; null
   * with fewer than two judges, fewer than two common items, or when chance agreement is
   * total (all answers in one category). A null must fail a reliability gate, not skip it.
   */
  kappa: number | null;
  /** Verdicts counted. */
  n: number;
  nNormal: number;
  nSwapped: number;
  /** Both orders are present; when false, winRate comes from the one order there is. */
  balanced: boolean;
}

const POINTS: Record<PairwiseWinner, number> = { a: 1, tie: 0.5, b: 0 };
const CATEGORIES: readonly PairwiseWinner[] = ["a", "tie", "b"];

/**
 * Aggregate pairwise verdicts into an order-corrected win rate for the original a, plus the
 * agreement between judges. Swapped winners are mapped back first (a ↔ b, tie stays). The
 * normal-order rate and the swapped-order rate are averaged so a judge's position bias cancels
 * out; when one order is missing the other is used alone and `balanced` is false. For kappa,
 * each judge's verdicts on an item (normal and swapped) are averaged into one answer (a, b, or
 * tie when they balance out), so a pair of orders is one observation.
 * @example
 * pairwiseWinRate([
 *   { item: "q1", judge: "j1", order: "normal", winner: "a" },
 *   { item: "q1", judge: "j1", order: "swapped", winner: "b" },
 * ]) // → { winRate: 1, kappa: null, n: 2, nNormal: 1, nSwapped: 1, balanced: true }
 */
export function pairwiseWinRate(verdicts: readonly PairwiseVerdict[]): PairwiseWinRateResult {
  verdicts.forEach(checkVerdict);
  const normal = verdicts.filter((v) => v.order === "normal");
  const swapped = verdicts.filter((v) => v.order === "swapped");
  const normalRate = meanPoints(normal);
  const swappedRate = meanPoints(swapped);
  let winRate: number | null = null;
  if (normalRate !== null && swappedRate !== null) winRate = (normalRate + swappedRate) / 2;
  else winRate = normalRate ?? swappedRate;
  return {
    winRate,
    kappa: judgeKappa(verdicts),
    n: verdicts.length,
    nNormal: normal.length,
    nSwapped: swapped.length,
    balanced: normal.length > 0 && swapped.length > 0,
  };
}

/** The winner in the original orientation (a swapped "a" is the original b). */
function originalWinner(verdict: PairwiseVerdict): PairwiseWinner {
  if (verdict.order === "normal" || verdict.winner === "tie") return verdict.winner;
  return verdict.winner === "a" ? "b" : "a";
}

function meanPoints(verdicts: readonly PairwiseVerdict[]): number | null {
  if (verdicts.length === 0) return null;
  let sum = 0;
  for (const verdict of verdicts) sum += POINTS[originalWinner(verdict)];
  return sum / verdicts.length;
}

function judgeKappa(verdicts: readonly PairwiseVerdict[]): number | null {
  const byJudge = new Map<string, PairwiseVerdict[]>();
  for (const verdict of verdicts) {
    const key = verdict.judge ?? "";
    const list = byJudge.get(key);
    if (list) list.push(verdict);
    else byJudge.set(key, [verdict]);
  }
  // Most verdicts first; equal counts fall back to the judge id so the pair is deterministic.
  const ranked = [...byJudge.entries()].sort(
    ([idA, a], [idB, b]) => b.length - a.length || (idA < idB ? -1 : idA > idB ? 1 : 0),
  );
  const first = ranked[0];
  const second = ranked[1];
  if (!first || !second) return null;
  const answersA = answersByItem(first[1]);
  const answersB = answersByItem(second[1]);
  const pairs: [PairwiseWinner, PairwiseWinner][] = [];
  for (const [item, answer] of answersA) {
    const other = answersB.get(item);
    if (other !== undefined) pairs.push([answer, other]);
  }
  if (pairs.length < 2) return null;
  return cohenKappa(pairs);
}

function answersByItem(verdicts: readonly PairwiseVerdict[]): Map<string, PairwiseWinner> {
  const points = new Map<string, number[]>();
  for (const verdict of verdicts) {
    const list = points.get(verdict.item);
    if (list) list.push(POINTS[originalWinner(verdict)]);
    else points.set(verdict.item, [POINTS[originalWinner(verdict)]]);
  }
  const answers = new Map<string, PairwiseWinner>();
  for (const [item, values] of points) {
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    answers.set(item, mean > 0.5 ? "a" : mean < 0.5 ? "b" : "tie");
  }
  return answers;
}

function cohenKappa(pairs: readonly [PairwiseWinner, PairwiseWinner][]): number | null {
  const total = pairs.length;
  const observed = pairs.filter(([a, b]) => a === b).length / total;
  let expected = 0;
  for (const category of CATEGORIES) {
    const shareA = pairs.filter(([a]) => a === category).length / total;
    const shareB = pairs.filter(([, b]) => b === category).length / total;
    expected += shareA * shareB;
  }
  // Both judges always gave one same answer: agreement by chance is total, kappa is undefined.
  if (expected >= 1) return null;
  return (observed - expected) / (1 - expected);
}

function checkVerdict(verdict: PairwiseVerdict, index: number): void {
  const where = `pairwiseWinRate: verdicts[${index}]`;
  if (typeof verdict.item !== "string" || verdict.item === "") {
    throw new TypeError(`${where}.item must be a non-empty string naming the compared item`);
  }
  if (verdict.order !== "normal" && verdict.order !== "swapped") {
    throw new TypeError(
      `${where}.order must be "normal" or "swapped" (got ${String(verdict.order)})`,
    );
  }
  if (!Object.hasOwn(POINTS, verdict.winner)) {
    throw new TypeError(
      `${where}.winner must be "a", "b" or "tie" (got ${String(verdict.winner)})`,
    );
  }
}
