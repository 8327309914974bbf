package ctl

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"kplane/pkg/debug"
	"kplane/pkg/humanize"
)

// queueHistoryPerQueue is how many past passages `ctl queues --history`
// keeps per queue, as the web view's Workqueues panel does.
const queueHistoryPerQueue = 12

// printQueueHistory writes `ctl queues --history`: per queue, its last
// keys oldest first, each with its passage; or the passages as JSON.
func printQueueHistory(out io.Writer, passages []debug.KeyPassage, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(passages)
	}
	if len(passages) == 0 {
		fmt.Fprintln(out, "No key has gone through a workqueue yet.")
		return nil
	}
	var w *tabwriter.Writer
	group := ""
	for _, p := range passages {
		if name := p.Component + " / " + p.Queue; name != group {
			if w != nil {
				w.Flush()
				fmt.Fprintln(out)
			}
			group = name
			fmt.Fprintln(out, name)
			w = tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
			fmt.Fprintln(w, "KEY\tSTARTED\tPASSAGE")
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", p.Key, p.Steps[0].Time.Format("15:04:05.000"), passageLine(p))
	}
	w.Flush()
	return nil
}

// passageLine is one passage in words: each step, and after the first its
// time since the passage started ("queue → processing +0.1ms → sync ok
// (took 158µs) +0.2ms → done +0.2ms").
func passageLine(p debug.KeyPassage) string {
	start := p.Steps[0].Time
	words := make([]string, 0, len(p.Steps))
	for i, step := range p.Steps {
		word := step.State
		if step.State == debug.PassageSync && step.Detail != "" {
			word += " " + step.Detail
		}
		if i > 0 {
			word += " +" + stepOffset(step.Time.Sub(start))
		}
		words = append(words, word)
	}
	line := strings.Join(words, " → ")
	if p.Deduplicated > 0 {
		line += " (" + humanize.Count(p.Deduplicated, "more add") + " deduplicated)"
	}
	if !p.Finished {
		line += " … in flight"
	}
	return line
}

// stepOffset renders the time between two steps of a passage, which are
// often microseconds apart.
func stepOffset(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(100 * time.Microsecond).String()
}
