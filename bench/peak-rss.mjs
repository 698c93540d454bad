// Reads the lines rss-hook.mjs writes: the peak RSS of the CLI and of its eval processes (a
// crashed one is replaced, so there may be several; they run one after another, so the largest
// counts), in MB. `total` is the CLI's plus the eval process's: both live for the whole run, so
// it bounds what the run held at once.
export function peakRss(stderr) {
  let cli = Number.NaN;
  let evalProcess = 0;
  for (const [, kb, role] of stderr.matchAll(/BENCH_MAX_RSS_KB=(\d+) (cli|eval)/g)) {
    const mb = Number(kb) / 1024;
    if (role === "cli") cli = mb;
    else evalProcess = Math.max(evalProcess, mb);
  }
  return { cli, eval: evalProcess, total: cli + evalProcess };
}
