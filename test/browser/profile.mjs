// profile.mjs: an optional sampling CPU profile of the page's main thread
// (Chromium's DevTools Profiler, over CDP), used by bench_scenario.mjs when
// KPLANE_BENCH_PROFILE is set, to see where the long tasks go. The summary
// is self time per function; "(program)" is the browser's own work outside
// JavaScript (style, layout, paint, parsing HTML), "(garbage collector)"
// the V8 collector.
import { writeFileSync } from "node:fs";

// startProfile starts sampling every 200 µs and returns a function that
// stops it, saves the .cpuprofile (openable in Chrome DevTools) at path,
// and returns the top functions by self time as text lines.
export async function startProfile(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  return async (path, top = 15) => {
    const { profile } = await cdp.send("Profiler.stop");
    await cdp.detach();
    writeFileSync(path, JSON.stringify(profile));
    return selfTimes(profile).slice(0, top);
  };
}

// selfTimes adds each sample's interval to the function it landed in.
function selfTimes(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] || 0) / 1000;
    const frame = nodes.get(id).callFrame;
    const file = frame.url ? frame.url.replace(/^.*\/js\//, "js/") : "";
    const name = `${frame.functionName || "(anonymous)"}${file ? ` ${file}:${frame.lineNumber + 1}` : ""}`;
    byFunction.set(name, (byFunction.get(name) || 0) + ms);
    total += ms;
  });
  return [...byFunction].sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${ms.toFixed(0).padStart(7)} ms ${(100 * ms / total).toFixed(1).padStart(5)}%  ${name}`);
}
