import { expectTypeOf, test } from "vitest";
import type { AppUsageTotals, EvalSummary, JudgeUsage, RunSummary } from "./index.js";

// The types of every summary field are exported where the summaries are, so a reporter or a test
// that builds a summary can name them.
test("the summaries' usage totals are exported types", () => {
  expectTypeOf<RunSummary["app"]>().toEqualTypeOf<AppUsageTotals>();
  expectTypeOf<EvalSummary["app"]>().toEqualTypeOf<AppUsageTotals | undefined>();
  expectTypeOf<AppUsageTotals>().toHaveProperty("unreported");
  expectTypeOf<JudgeUsage>().toHaveProperty("calls");
});
