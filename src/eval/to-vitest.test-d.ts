import { describe, expect, expectTypeOf, it } from "vitest";
import type { TypedEvalSuite } from "./suite.js";
import { toVitest, type VitestHooks } from "./to-vitest.js";

// Vitest's own describe / it / expect fit the injected hooks as they are.
expectTypeOf({ describe, it, expect }).toExtend<VitestHooks>();

declare const suite: TypedEvalSuite<{ prompt: string }, { text: string }>;

// The target's input and output are the suite's.
toVitest(suite, { target: async ({ prompt }) => ({ text: prompt }) }, { describe, it, expect });
// @ts-expect-error the target must return the suite's output type
toVitest(suite, { target: async () => ({ txt: "x" }) }, { describe, it, expect });
const wrongInput = async ({ query }: { query: string }) => ({ text: query });
// @ts-expect-error the target receives the suite's input type
toVitest(suite, { target: wrongInput }, { describe, it, expect });
