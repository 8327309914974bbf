package robustness

// valuePrefix starts every value the traffic writes, so the checker tells
// them from values written by anyone else.
const valuePrefix = "robustness-"
