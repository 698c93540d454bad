// Loaded with `node --import` by the benchmarks: each process reports its peak RSS on exit. A
// supervised run's eval process inherits the flag, so it reports too, as "eval" (it has an IPC
// channel); the CLI reports as "cli". `peakRss` in peak-rss.mjs reads these lines.
process.on("exit", () => {
  const role = process.send ? "eval" : "cli";
  process.stderr.write(`\nBENCH_MAX_RSS_KB=${process.resourceUsage().maxRSS} ${role}\n`);
});
