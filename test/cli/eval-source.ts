/** The imports and the `same` scorer that the CLI tests' eval files start with. */
export const evalFileHeader = `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
`;
