// parseQuantity reads a Kubernetes resource quantity ("250m", "2", "128Mi",
// "1G", "1e3") as a number of base units: cores for CPU, bytes for memory.
const suffixes = {
  n: 1e-9, u: 1e-6, m: 1e-3, "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

export function parseQuantity(text) {
  if (text === undefined || text === null) return 0;
  const match = /^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)$/.exec(String(text).trim());
  if (!match || !(match[2] in suffixes)) return 0;
  return Number(match[1]) * suffixes[match[2]];
}

// formatCPU shows cores as kubectl does: millicores below one core.
export function formatCPU(cores) {
  return cores < 1 ? `${Math.round(cores * 1000)}m` : `${+cores.toFixed(2)}`;
}

// formatBytes shows bytes in binary units.
export function formatBytes(bytes) {
  const units = ["", "Ki", "Mi", "Gi", "Ti"];
  let unit = 0;
  while (bytes >= 1024 && unit < units.length - 1) {
    bytes /= 1024;
    unit++;
  }
  return `${+bytes.toFixed(1)}${units[unit]}`;
}
