// What the viewer's server keeps of a run without summaries while attempts come in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { thisWriter } from "../../src/store/writer.js";
import { FoldedDetails } from "../../src/viewer/kept.js";
import { manifest } from "../store/fixtures.js";
import { storeWithRuns } from "./fixture.js";

let fixture: Awaited<ReturnType<typeof storeWithRuns>>;
let records: AttemptRecord[];
const liveId = "run-live-kept-0000";

beforeAll(async () => {
  fixture = await storeWithRuns();
  records = [];
  for await (const record of fixture.store.streamAttempts(fixture.headId)) records.push(record);
  await fixture.store.beginRun({
    ...manifest(liveId, { evals: ["greetings"], startedAt: "2025-01-04T00:00:00.000Z" }),
    writer: thisWriter(),
  });
  await fixture.store.appendAttempts(liveId, records.slice(0, 4));
}, 120_000);

afterAll(() => fixture?.cleanup());

const live = async () => (await fixture.store.getRun(liveId))!;

describe("a live run's folded detail", () => {
  it("is folded again as attempts come in when folding is quick", async () => {
    const details = new FoldedDetails(fixture.store);
    expect((await details.detail(await live())).evals[0]!.attempts).toBe(4);
    await fixture.store.appendAttempts(liveId, records.slice(4, 6));
    expect((await details.detail(await live())).evals[0]!.attempts).toBe(6);
  });

  it("is kept while attempts come in when folding is slow, and folded once for requests made together", async () => {
    // Every fold counts as large here, and is kept for a very long time.
    const details = new FoldedDetails(fixture.store, 0, 1e9);
    const first = await details.detail(await live());
    await fixture.store.appendAttempts(liveId, records.slice(6, 8));
    // The fold before stands: a large fold is not done again on every poll.
    expect(await details.detail(await live())).toBe(first);
    // Once its time is up (no spacing at all here), it is folded again, once for two requests.
    const spaced = new FoldedDetails(fixture.store, 0, 0);
    const [a, b] = [spaced.detail(await live()), spaced.detail(await live())];
    expect(a).toBe(b);
    expect((await a).evals[0]!.attempts).toBe(8);
  });
});
