package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"kplane/pkg/clusterclock"
	"kplane/pkg/debug"
)

// The clock panel: the cluster clock `ctl time` prints, and buttons that
// advance it as `ctl time advance` does (pkg/clusterclock, the same code).
// Live by polling: the page asks GET /api/debug/clock once a second while
// the panel is visible. The clock is one ConfigMap's offset plus the wall
// clock, so a poll is one small read, and the page's own ticking between
// polls would be a guess.
//
//	GET  /api/debug/clock
//	POST /api/debug/clock/advance?by=60s

// maxAdvance is the most one click may advance the clock: the buttons
// offer at most 5 minutes, which takes 6 s of wall time in 5 s steps.
const maxAdvance = time.Hour

// clockAnswer is what the clock routes answer.
type clockAnswer struct {
	// Virtual is false on a cluster that runs on the wall clock.
	Virtual bool `json:"virtual"`
	// ClusterTime and WallTime are RFC 3339 timestamps in UTC.
	ClusterTime string `json:"clusterTime"`
	WallTime    string `json:"wallTime"`
	// OffsetSeconds is how far the cluster clock is ahead of the wall clock.
	OffsetSeconds float64 `json:"offsetSeconds"`
	// Text is what `ctl time` (or `ctl time advance`) prints.
	Text string `json:"text"`
}

// serveClock answers the cluster clock.
func (s *Server) serveClock(w http.ResponseWriter, r *http.Request) {
	offset, err := clusterclock.Read(r.Context(), s.opts.Client)
	virtual := true
	if errors.Is(err, clusterclock.ErrWallClock) {
		virtual, err = false, nil
	}
	if err != nil {
		debug.WriteStatus(w, http.StatusBadGateway, "InternalError", err.Error())
		return
	}
	now := time.Now()
	writeClockAnswer(w, clockAnswer{Virtual: virtual, ClusterTime: clusterclock.Format(now.Add(offset)),
		WallTime: clusterclock.Format(now), OffsetSeconds: offset.Seconds(), Text: clusterclock.Describe(now, offset, virtual)})
}

// serveClockAdvance moves the cluster clock forward by ?by=.
func (s *Server) serveClockAdvance(w http.ResponseWriter, r *http.Request) {
	text := r.URL.Query().Get("by")
	by, err := time.ParseDuration(text)
	if err != nil || by <= 0 || by > maxAdvance {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest",
			fmt.Sprintf("by=%q: want a positive Go duration of at most %v, such as 60s", text, maxAdvance))
		return
	}
	offset, err := clusterclock.Advance(r.Context(), s.opts.Client, by, clusterclock.AdvanceOptions{})
	if errors.Is(err, clusterclock.ErrWallClock) {
		debug.WriteStatus(w, http.StatusConflict, "Conflict", err.Error())
		return
	}
	if err != nil {
		debug.WriteStatus(w, http.StatusBadGateway, "InternalError", "advance the cluster clock: "+err.Error())
		return
	}
	now := time.Now()
	writeClockAnswer(w, clockAnswer{Virtual: true, ClusterTime: clusterclock.Format(now.Add(offset)),
		WallTime: clusterclock.Format(now), OffsetSeconds: offset.Seconds(), Text: clusterclock.AdvancedText(now, by, offset)})
}

// writeClockAnswer writes answer as JSON.
func writeClockAnswer(w http.ResponseWriter, answer clockAnswer) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}
