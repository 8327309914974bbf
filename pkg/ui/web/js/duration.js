// formatDuration renders milliseconds the way ctl prints queue and lease
// times: milliseconds below a second, tenths below ten seconds, then
// seconds, minutes and hours as kubectl's AGE column does.
export function formatDuration(ms) {
  if (!Number.isFinite(ms)) return "?";
  const sign = ms < 0 ? "-" : "";
  ms = Math.abs(ms);
  if (ms < 1000) return `${sign}${ms < 10 ? ms.toFixed(1) : Math.round(ms)}ms`;
  const seconds = ms / 1000;
  if (seconds < 10) return `${sign}${seconds.toFixed(1)}s`;
  if (seconds < 120) return `${sign}${Math.floor(seconds)}s`;
  const minutes = seconds / 60;
  if (minutes < 120) return `${sign}${Math.floor(minutes)}m${Math.floor(seconds % 60)}s`;
  return `${sign}${Math.floor(minutes / 60)}h${Math.floor(minutes % 60)}m`;
}

// clockTime is a timestamp's time of day with milliseconds, 17:02:03.456.
export function clockTime(timestamp) {
  const date = new Date(timestamp);
  const pad = (n, width = 2) => String(n).padStart(width, "0");
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

// parseTime reads an RFC 3339 timestamp in milliseconds, keeping the
// sub-millisecond digits Go writes (Date.parse drops them): a worker's
// Get and Done are often microseconds apart.
export function parseTime(timestamp) {
  const match = /^(.*T\d\d:\d\d:\d\d)(\.\d+)?(.*)$/.exec(timestamp || "");
  if (!match) return NaN;
  return Date.parse(match[1] + match[3]) + (match[2] ? Number(match[2]) * 1000 : 0);
}
