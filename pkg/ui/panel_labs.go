package ui

// The Labs panel: `ctl lab` in the page. Both read and move the same
// progress (the ConfigMap kube-system/kplane-lab) through the same
// functions of pkg/lab — Start, Check, NextHint, Reset — so a lab started
// in a terminal shows in the page, and a step checked in the page is the
// step `ctl lab check` goes on from. Unlike the machinery panels, it needs
// no component's debug API: labs read the cluster through its API.
//
// Live data: the page polls GET /api/debug/labs once a second while the panel
// is visible. The progress is one small ConfigMap read with one GET; the
// object stream is not widened to every ConfigMap of the cluster for it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/debug"
	"kplane/pkg/lab"
)

// How long a Check press keeps looking before it says "not yet". Shorter
// than `ctl lab check`'s 20 s: a button is pressed again at no cost, and
// a page that waits in silence looks broken. Like the CLI, it looks again
// every 250 ms, because a controller acts within moments of a command.
const (
	labCheckWait     = 10 * time.Second
	labCheckMaxWait  = time.Minute
	labCheckInterval = 250 * time.Millisecond
	// labResetWait is `ctl lab reset`'s default --wait.
	labResetWait = 60 * time.Second
)

// labRequest is the body of the panel's POSTs.
type labRequest struct {
	// Lab is the lab to start (start only).
	Lab string `json:"lab"`
	// Lang is the language to answer in: "en", "zh", or empty for the
	// Locale's language.
	Lang string `json:"lang"`
	// Locale is the browser's navigator.language, read as `ctl lab`
	// reads LANG when Lang is empty.
	Locale string `json:"locale"`
	// Wait is how long a check keeps looking (check only; `ctl lab
	// check --wait`), "10s" when empty, at most labCheckMaxWait.
	Wait string `json:"wait"`
}

// labAnswer is what a POST answers: what happened, in words, and the
// panel's new state.
type labAnswer struct {
	// Outcome is "passed", "not-yet", "finished", "hint", "started" or "reset".
	Outcome string `json:"outcome"`
	// Lines are what `ctl lab` prints for the same action.
	Lines []string `json:"lines"`
	// Explain is a passed step's explanation, with its panel links.
	Explain []segment `json:"explain,omitempty"`
	View    labsView  `json:"view"`
}

// language picks the answer's language: lang when given, else the
// locale's language by `ctl lab`'s rule (zh… is Chinese, anything else
// English).
func (r labRequest) language() (lab.Lang, error) {
	if r.Lang != "" {
		return lab.ParseLang(r.Lang)
	}
	return lab.LangFromLocale(func(name string) string {
		if name == "LANG" {
			return r.Locale
		}
		return ""
	}), nil
}

// checkWait reads Wait: labCheckWait when empty, a duration from 0 to
// labCheckMaxWait otherwise.
func (r labRequest) checkWait() (time.Duration, error) {
	if r.Wait == "" {
		return labCheckWait, nil
	}
	wait, err := time.ParseDuration(r.Wait)
	if err != nil || wait < 0 || wait > labCheckMaxWait {
		return 0, fmt.Errorf("wait %q: want a duration from 0s to %v", r.Wait, labCheckMaxWait)
	}
	return wait, nil
}

// serveLabs is GET /api/debug/labs?lang=&locale=: every lab and the progress.
func (s *Server) serveLabs(w http.ResponseWriter, r *http.Request) {
	req := labRequest{Lang: r.URL.Query().Get("lang"), Locale: r.URL.Query().Get("locale")}
	lang, err := req.language()
	if err != nil {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	view, err := s.labsView(r.Context(), lang)
	if err != nil {
		writeLabError(w, err)
		return
	}
	writeLabJSON(w, view)
}

// serveLabAction is POST /api/debug/labs/{action}: start, check, hint or reset,
// each what the `ctl lab` verb of that name does.
func (s *Server) serveLabAction(w http.ResponseWriter, r *http.Request) {
	var req labRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", "the body must be JSON {lab, lang, locale}: "+err.Error())
		return
	}
	lang, err := req.language()
	if err != nil {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	ctx := r.Context()
	var answer labAnswer
	switch action := r.PathValue("action"); action {
	case "start":
		answer, err = s.startLab(ctx, req.Lab, lang)
	case "check":
		wait, werr := req.checkWait()
		if werr != nil {
			debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", werr.Error())
			return
		}
		answer, err = s.checkLab(ctx, lang, wait)
	case "hint":
		answer, err = s.hintLab(ctx, lang)
	case "reset":
		answer, err = s.resetLab(ctx, lang)
	default:
		debug.WriteStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("no lab action %q: start, check, hint or reset", action))
		return
	}
	if err != nil {
		writeLabError(w, err)
		return
	}
	if answer.View, err = s.labsView(ctx, lang); err != nil {
		writeLabError(w, err)
		return
	}
	writeLabJSON(w, answer)
}

// serveLabFile is GET /api/debug/labs/{lab}/files/{file}: one of a lab's
// embedded files, the YAML its commands apply. The page shows them; the
// page writes no files (`ctl lab start` does).
func (s *Server) serveLabFile(w http.ResponseWriter, r *http.Request) {
	l, err := lab.Find(r.PathValue("lab"))
	if err != nil {
		debug.WriteStatus(w, http.StatusNotFound, "NotFound", err.Error())
		return
	}
	name := r.PathValue("file")
	for _, file := range l.Files {
		if file != name {
			continue
		}
		data, err := lab.File(file)
		if err != nil {
			writeLabError(w, err)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(data)
		return
	}
	debug.WriteStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("lab %s has no file %q", l.Name, name))
}

// labsView reads the progress and renders the panel in lang.
func (s *Server) labsView(ctx context.Context, lang lab.Lang) (labsView, error) {
	p, err := lab.LoadProgress(ctx, s.opts.Client)
	if err != nil {
		return labsView{}, err
	}
	return newLabsView(p, lang), nil
}

// startLab is `ctl lab start NAME`, without writing the files: their
// place is the student's terminal, not the server's working directory.
func (s *Server) startLab(ctx context.Context, name string, lang lab.Lang) (labAnswer, error) {
	l, err := lab.Find(name)
	if err != nil {
		return labAnswer{}, labNotFound{err}
	}
	if _, err := lab.Start(ctx, s.opts.Client, l, lang, lab.DefaultDir); err != nil {
		return labAnswer{}, err
	}
	return labAnswer{Outcome: "started", Lines: []string{lab.Textf(lab.Messages.Started, l.Name, l.Title.In(lang)).In(lang)}}, nil
}

// checkLab is `ctl lab check`: the same lab.Check, answered in the same
// words.
func (s *Server) checkLab(ctx context.Context, lang lab.Lang, wait time.Duration) (labAnswer, error) {
	l, p, err := s.startedLab(ctx, lang)
	if err != nil {
		return labAnswer{}, err
	}
	number := p.Step + 1
	step, err := lab.Check(ctx, s.opts.Client, l, p, wait, labCheckInterval)
	if step == nil && err == nil {
		return labAnswer{Outcome: "finished", Lines: []string{lab.Textf(lab.Messages.Finished, l.Name).In(lang)}}, nil
	}
	if u, notYet := lab.AsUnmet(err); notYet {
		lines := []string{lab.Textf(lab.Messages.NotYet, number, u.Reason.In(lang)).In(lang)}
		if hint, more := lab.FirstHint(step, p.Dir, lang); hint != "" {
			lines = append(lines, lab.Textf(lab.Messages.Hint, hint).In(lang))
			if more {
				lines = append(lines, lab.Messages.NoHint.In(lang))
			}
		}
		return labAnswer{Outcome: "not-yet", Lines: lines}, nil
	}
	if err != nil {
		return labAnswer{}, err
	}
	return labAnswer{
		Outcome: "passed",
		Lines:   []string{lab.Textf(lab.Messages.Passed, number, step.Title.In(lang)).In(lang)},
		Explain: segments(step.Explain.In(lang)),
	}, nil
}

// hintLab is `ctl lab hint`.
func (s *Server) hintLab(ctx context.Context, lang lab.Lang) (labAnswer, error) {
	l, p, err := s.startedLab(ctx, lang)
	if err != nil {
		return labAnswer{}, err
	}
	hint, err := lab.NextHint(ctx, s.opts.Client, l, p)
	if err != nil {
		return labAnswer{}, labConflict{err}
	}
	return labAnswer{Outcome: "hint", Lines: []string{lab.Textf(lab.Messages.Hint, lab.ExpandDir(hint.In(lang), p.Dir)).In(lang)}}, nil
}

// resetLab is `ctl lab reset`: it deletes what the started lab created,
// in the foreground, and the progress.
func (s *Server) resetLab(ctx context.Context, lang lab.Lang) (labAnswer, error) {
	l, _, err := s.startedLab(ctx, lang)
	if err != nil {
		return labAnswer{}, err
	}
	if err := lab.Reset(ctx, s.opts.Client, l, labResetWait); err != nil {
		return labAnswer{}, err
	}
	return labAnswer{Outcome: "reset", Lines: []string{lab.Textf(lab.Messages.Reset, l.Name).In(lang)}}, nil
}

// startedLab loads the progress and its lab; a labConflict saying "no lab
// started" when there is none.
func (s *Server) startedLab(ctx context.Context, lang lab.Lang) (*lab.Lab, *lab.Progress, error) {
	p, err := lab.LoadProgress(ctx, s.opts.Client)
	if err != nil {
		return nil, nil, err
	}
	if p == nil {
		return nil, nil, labConflict{errors.New(lab.Messages.NoLab.In(lang))}
	}
	l, err := lab.Find(p.Lab)
	if err != nil {
		return nil, nil, labConflict{err}
	}
	return l, p, nil
}

// labNotFound is a lab name that names no lab (404).
type labNotFound struct{ error }

// labConflict is an action the progress does not allow now: checking with
// no lab started, a hint after the last step (409).
type labConflict struct{ error }

// writeLabError answers err as a Status: the cluster's own Status code
// when the API refused, 404 and 409 for the panel's own refusals, 500
// otherwise.
func writeLabError(w http.ResponseWriter, err error) {
	var notFound labNotFound
	var conflict labConflict
	switch {
	case errors.As(err, &notFound):
		debug.WriteStatus(w, http.StatusNotFound, "NotFound", err.Error())
	case errors.As(err, &conflict):
		debug.WriteStatus(w, http.StatusConflict, "Conflict", err.Error())
	case apierrors.CodeOf(err) != 0:
		debug.WriteStatus(w, int(apierrors.CodeOf(err)), apierrors.ReasonOf(err), err.Error())
	default:
		debug.WriteStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
	}
}

// writeLabJSON answers v as JSON.
func writeLabJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
