// Package trace holds what `ctl trace` and `ctl why` and the web view's
// trace and why panels share, so that the page and the CLI tell the same
// story from the components' journals (package debug): which records
// concern an object and what it owns (FollowedSet), the order records of
// several components merge in (Before), the cells a trace line shows
// (Stage, Detail), and the latest decision of each controller and of the
// scheduler about one object (Decisions, LatestPerActor).
package trace
