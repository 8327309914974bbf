package ui

import (
	"regexp"
	"strings"

	"kplane/pkg/lab"
)

// The Labs panel's JSON: pkg/lab's labs and progress rendered in one
// language, so that the page holds no lab text of its own — every word it
// shows about a lab comes from pkg/lab, as `ctl lab` prints it.

// labsView is the answer of GET /api/debug/labs: every lab, and the progress.
type labsView struct {
	// Lang is the language the texts are in ("en" or "zh").
	Lang lab.Lang `json:"lang"`
	// Words are the panel's buttons and labels in Lang.
	Words map[string]string `json:"words"`
	Labs  []labSummary      `json:"labs"`
	// Progress is the started lab; nil when none is (NoLab says so).
	Progress *progressView `json:"progress"`
	NoLab    string        `json:"noLab"`
}

// labSummary is one line of `ctl lab list`.
type labSummary struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Intro string `json:"intro"`
	Steps int    `json:"steps"`
}

// progressView is the started lab as the progress ConfigMap says: which
// step is current, and each step's text.
type progressView struct {
	Lab   string `json:"lab"`
	Title string `json:"title"`
	Intro string `json:"intro"`
	// Step is the current step's index; len(Steps) once finished.
	Step     int    `json:"step"`
	Finished bool   `json:"finished"`
	Message  string `json:"message,omitempty"`
	// Dir is what "{dir}" stands for in the commands.
	Dir   string   `json:"dir"`
	Files []string `json:"files"`
	// FilesNote says where the files the commands use come from.
	FilesNote string     `json:"filesNote,omitempty"`
	Steps     []stepView `json:"steps"`
}

// stepView is one step. Explain is filled for the passed steps only and
// Hints with the hints already shown (`ctl lab hint`) for the current one,
// as the CLI reveals them.
type stepView struct {
	Heading  string        `json:"heading"`
	State    string        `json:"state"` // passed, current or todo
	Do       string        `json:"do"`
	Commands []commandView `json:"commands"`
	Explain  []segment     `json:"explain,omitempty"`
	Hints    []string      `json:"hints,omitempty"`
}

// commandView is one command line, "{dir}" expanded.
type commandView struct {
	Line  string `json:"line"`
	Again bool   `json:"again,omitempty"`
	Fails bool   `json:"fails,omitempty"`
}

// segment is a piece of an explanation: plain text, or a `ctl` command in
// backquotes. A command of a teaching verb names the panel that shows the
// same (trace, why, queues, etcd) and, when it names one, the object
// (Kind/name, -n namespace), so the page can select it and open the panel.
type segment struct {
	Text      string `json:"text,omitempty"`
	Command   string `json:"command,omitempty"`
	Panel     string `json:"panel,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// labWords are the panel's own words. Only the buttons and labels live
// here; what a lab says, and what a check answers, are pkg/lab's.
var labWords = map[string]lab.Text{
	"start":     {En: "Start", Zh: "开始"},
	"check":     {En: "Check", Zh: "检查"},
	"hint":      {En: "Hint", Zh: "提示"},
	"reset":     {En: "Reset", Zh: "重置"},
	"checking":  {En: "checking the cluster…", Zh: "正在检查集群……"},
	"resetting": {En: "deleting what the lab created…", Zh: "正在删除实验创建的对象……"},
	"passed":    {En: "passed", Zh: "已通过"},
	"current":   {En: "current", Zh: "当前"},
	"todo":      {En: "to do", Zh: "待完成"},
	"inside":    {En: "What happened inside", Zh: "控制平面内部发生了什么"},
	"labs":      {En: "Labs", Zh: "实验列表"},
	"openPanel": {En: "open the panel", Zh: "打开面板"},
	"noPanel":   {En: "not in the page yet: run it in a terminal", Zh: "页面中还没有这个面板：请在终端运行"},
}

// labFilesNote says where the files of a lab started in the page are:
// the page writes none (see startLab).
var labFilesNote = lab.Text{
	En: "The commands use the lab's files in %s/: `ctl lab start %s` in a terminal writes them there (and starts the lab again at step 1). They are also here:",
	Zh: "这些命令使用 %s/ 下的实验文件：在终端运行 `ctl lab start %s` 会把它们写到那里（并从第 1 步重新开始）。也可以在这里查看：",
}

// wordsIn renders labWords in lang.
func wordsIn(lang lab.Lang) map[string]string {
	words := make(map[string]string, len(labWords))
	for key, text := range labWords {
		words[key] = text.In(lang)
	}
	return words
}

// newLabsView renders every lab and the progress p (nil: none) in lang.
func newLabsView(p *lab.Progress, lang lab.Lang) labsView {
	v := labsView{Lang: lang, Words: wordsIn(lang), NoLab: lab.Messages.NoLab.In(lang)}
	for _, l := range lab.All() {
		v.Labs = append(v.Labs, labSummary{Name: l.Name, Title: l.Title.In(lang), Intro: l.Intro.In(lang), Steps: len(l.Steps)})
	}
	if p == nil {
		return v
	}
	v.Progress = &progressView{Lab: p.Lab, Step: p.Step, Dir: p.Dir}
	l, err := lab.Find(p.Lab)
	if err != nil {
		// A progress written by another kplane version: say so rather
		// than guess its steps.
		v.Progress.Message = err.Error()
		return v
	}
	pv := v.Progress
	pv.Title, pv.Intro, pv.Files = l.Title.In(lang), l.Intro.In(lang), l.Files
	if len(l.Files) > 0 {
		pv.FilesNote = lab.Textf(labFilesNote, p.Dir, l.Name).In(lang)
	}
	if _, more := l.Current(p); !more {
		pv.Finished = true
		pv.Message = lab.Textf(lab.Messages.Finished, l.Name).In(lang)
	}
	for i, step := range l.Steps {
		sv := stepView{
			Heading: lab.Textf(lab.Messages.Step, i+1, len(l.Steps), step.Title.In(lang)).In(lang),
			Do:      step.Do.In(lang),
			State:   "todo",
		}
		for _, c := range step.Commands {
			sv.Commands = append(sv.Commands, commandView{Line: c.Expand(p.Dir), Again: c.Again, Fails: c.Fails})
		}
		switch {
		case i < p.Step:
			sv.State = "passed"
			sv.Explain = segments(step.Explain.In(lang))
		case i == p.Step:
			sv.State = "current"
			for _, hint := range step.Hints[:max(0, min(p.Hints, len(step.Hints)))] {
				sv.Hints = append(sv.Hints, lab.ExpandDir(hint.In(lang), p.Dir))
			}
		}
		pv.Steps = append(pv.Steps, sv)
	}
	return v
}

// quotedCommand finds the backquoted commands of a text.
var quotedCommand = regexp.MustCompile("`([^`]+)`")

// panelOfVerb maps the teaching verbs to the page's panels (their
// section ids) that show the same.
var panelOfVerb = map[string]string{"trace": "trace", "why": "why", "queues": "queues", "etcd": "etcd"}

// segments splits text at its backquoted commands.
func segments(text string) []segment {
	var out []segment
	last := 0
	for _, m := range quotedCommand.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > last {
			out = append(out, segment{Text: text[last:m[0]]})
		}
		out = append(out, commandSegment(text[m[2]:m[3]]))
		last = m[1]
	}
	if last < len(text) {
		out = append(out, segment{Text: text[last:]})
	}
	return out
}

// commandSegment reads one command: "ctl why replicaset/ng-rs -n web"
// names the why panel and the ReplicaSet web/ng-rs. A placeholder
// ("pod/<name>") names no object.
func commandSegment(command string) segment {
	s := segment{Command: command}
	words := strings.Fields(command)
	if len(words) < 2 || words[0] != "ctl" {
		return s
	}
	s.Panel = panelOfVerb[words[1]]
	if s.Panel == "" {
		return s
	}
	for i := 2; i < len(words); i++ {
		switch word := words[i]; {
		case word == "-n" && i+1 < len(words):
			s.Namespace = words[i+1]
			i++
		case strings.Contains(word, "/") && !strings.HasPrefix(word, "/") && !strings.ContainsAny(word, "<>"):
			s.Kind, s.Name, _ = strings.Cut(word, "/")
		}
	}
	return s
}
