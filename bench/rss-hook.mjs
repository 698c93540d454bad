// Loaded with `node --import` by the benchmark: reports the process's peak RSS on exit.
process.on("exit", () => {
  process.stderr.write(`\nBENCH_MAX_RSS_KB=${process.resourceUsage().maxRSS}\n`);
});
