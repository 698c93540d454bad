// What the consumer tests feed every report: text that breaks careless escaping, in every field a
// user controls (eval and case ids, inputs, outputs, metadata, scorer names and reasons, errors).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineSuite } from "../../src/eval/suite.js";
import { createScorer } from "../../src/scorers/create-scorer.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import type { Store } from "../../src/store/types.js";
import { recordRun } from "../viewer/fixture.js";

/**
 * Table pipes, code spans, markup and comment openers, a CDATA end, an entity, line breaks of
 * every kind, workflow-command escapes and separators, NUL and other controls, an ANSI colour,
 * emoji, a combining mark, bidirectional marks, a lone surrogate, and a URL, a www. host and an
 * email address (which GFM would make links of).
 */
export const HOSTILE_TEXT =
  "a | b `c` <script>window.__hostile=1</script> <!-- x ]]> &amp; 50% :: k=v, x:y\n::notice title=injected::from a text\r\nline\rcr \u2028ls\u2029ps\u0085nel \u0000nul\u0007bel\u001b[31mred\u001b[0m 👩‍👩‍👧 e\u0301 \u200f\u202egnp.exe \u2066iso\u2069 \ud800 see https://evil.example/x?a=1, www.evil.example, me@evil.example end";

/** Case ids a dataset may use (ids hold no control character): every report must still name them. */
export const HOSTILE_IDS = {
  /** Every kind of punctuation the reports give a meaning to. */
  punctuation: "p | `q` <script>window.__hostile=2</script> <!-- ]]> &amp; 100% ::x, y:z",
  /** Only whitespace. */
  blank: "   ",
  /** Emoji, a combining mark, bidirectional marks. */
  unicode: "👩‍👩‍👧 e\u0301 \u200f\u202eabc",
  /** A very long id. */
  long: `long-${"x".repeat(5000)}`,
} as const;

/**
 * The bidirectional embeddings, overrides, isolates and marks, which reorder the text around them
 * as it is displayed ("Trojan Source"): a report a person reads shows none of them raw.
 */
export const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** {@link HOSTILE_IDS}' `unicode` as a report for a reader shows it: its bidirectional marks as symbols. */
export const UNICODE_ID_SHOWN = "👩‍👩‍👧 e\u0301 ⟨U+200F⟩⟨U+202E⟩abc";

/** The bidirectional part of {@link HOSTILE_TEXT} as a report for a reader shows it. */
export const HOSTILE_BIDI_SHOWN = "⟨U+200F⟩⟨U+202E⟩gnp.exe ⟨U+2066⟩iso⟨U+2069⟩";

/** The case whose target throws an error of several lines. */
export const THROWN_ID = "thrown";

/** The error the target throws in the head run: several lines, a pipe, a line that is a workflow command. */
export const THROWN_MESSAGE = `first line | with a pipe\n::error title=injected::from an error: 100%\r\n${HOSTILE_TEXT}`;

/** The eval's id, as careless as its cases'. */
export const HOSTILE_EVAL_ID = "qa | `evals` <b>bold</b> <!-- ]]> &amp; 5% ::x, y:z";

/** The gate's name, shown in judgment lines and comparisons. */
export const HOSTILE_SCORER = "exact | `x` <i>it</i>";

/** A scorer that throws hostile text in the head run: its errored judgment's reason. */
export const THROWING_SCORER = "explains <u>why</u>";

/**
 * A suite of the hostile cases. In the base run every case passes; in the head run every case
 * fails its gate, one errors (its target throws {@link THROWN_MESSAGE}), and a second scorer
 * throws {@link HOSTILE_TEXT}.
 */
export function hostileSuite(head: boolean, id = HOSTILE_EVAL_ID) {
  const exact = createScorer<string, string>({
    name: HOSTILE_SCORER,
    score: ({ output, expected }) => ({
      score: output === expected ? 1 : 0,
      metadata: { seen: output, note: HOSTILE_TEXT },
    }),
  });
  const explains = createScorer<string, string>({
    name: THROWING_SCORER,
    score: () => {
      if (head) throw new Error(HOSTILE_TEXT);
      return { score: 1 };
    },
  });
  return defineSuite<string, string>({
    id,
    cases: [...Object.values(HOSTILE_IDS), THROWN_ID].map((caseId) => ({
      id: caseId,
      input: `${caseId} ${HOSTILE_TEXT}`,
      expected: HOSTILE_TEXT,
    })),
    target: (input) => {
      if (!head) return HOSTILE_TEXT;
      if (input.startsWith(`${THROWN_ID} `)) throw new Error(THROWN_MESSAGE);
      return `out: ${HOSTILE_TEXT}`;
    },
    scorers: [exact, explains],
    gates: [HOSTILE_SCORER],
  });
}

/** Run ids and names as hostile as the rest (a run made from code, or imported, may have any). */
export const HOSTILE_RUNS = {
  base: { runId: "base-</script><!--run", name: "base <!-- </script> | `x`" },
  head: { runId: "head-</script><!--run", name: "head <!-- </script> | `x`" },
} as const;

/** A temp SQLite store holding the base run, then the head run, of {@link hostileSuite} (as `evalId`). */
export async function hostileStore(evalId = HOSTILE_EVAL_ID): Promise<{
  store: Store;
  path: string;
  cleanup(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), "niceeval-hostile-"));
  const path = join(dir, "store.sqlite");
  const store = await openSqliteStore(path);
  for (const [i, side] of (["base", "head"] as const).entries())
    await recordRun(store, {
      ...HOSTILE_RUNS[side],
      startedAt: new Date(Date.UTC(2025, 0, 1 + i)).toISOString(),
      evals: [hostileSuite(side === "head", evalId)],
      trials: 1,
    });
  return {
    store,
    path,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
