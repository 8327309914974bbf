package ctl

// `ctl lab`: the guided labs of package lab (docs/labs.md). This file only
// renders: what a lab is, how a step is checked and where the progress is
// kept are pkg/lab's, shared with the web page.

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/client"
	"kplane/pkg/lab"
)

// labOptions are the flags every `ctl lab` verb shares.
type labOptions struct {
	f    *factory
	lang string
}

// language is --lang, or the locale's language when it is not given.
func (o *labOptions) language() (lab.Lang, error) {
	if o.lang == "" {
		return lab.LangFromLocale(os.Getenv), nil
	}
	return lab.ParseLang(o.lang)
}

// newLabCommand is `ctl lab`.
func newLabCommand(f *factory) *cobra.Command {
	o := &labOptions{f: f}
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Guided labs: steps to follow, each checked against the cluster's real state (kplane)",
		Long: `lab walks through the seeds' scenarios — a Job, a StatefulSet and its DNS names,
a DaemonSet, a Deployment's rollout, deletion, quota, autoscaling, leader
election, informer relists — one step at a time. start writes the lab's YAML
into a directory and shows the first step; check reads the cluster to see
whether the step is done, and then explains what happened inside the control
plane; hint helps; reset deletes what the lab created. The progress lives in
the ConfigMap kube-system/kplane-lab, where the web page reads it too.

Every text is in English and Chinese: --lang en|zh, by default the locale's
language (LC_ALL, LC_MESSAGES, LANG: zh_CN.UTF-8 → zh).`,
		Example: `  ctl lab list
  ctl lab start job-pi
  ctl lab check
  ctl lab hint
  ctl lab reset
  LANG=zh_CN.UTF-8 ctl lab start deployment`,
	}
	cmd.PersistentFlags().StringVar(&o.lang, "lang", "", "language of the lab's texts, en or zh (default: from LC_ALL, LC_MESSAGES, LANG)")
	cmd.AddCommand(newLabListCommand(o), newLabStartCommand(o), newLabCheckCommand(o), newLabHintCommand(o), newLabResetCommand(o))
	return cmd
}

// newLabListCommand is `ctl lab list`.
func newLabListCommand(o *labOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the labs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lang, err := o.language()
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(o.f.out(), 0, 8, 3, ' ', 0)
			fmt.Fprintln(w, "NAME\tSTEPS\tTITLE")
			for _, l := range lab.All() {
				fmt.Fprintf(w, "%s\t%d\t%s\n", l.Name, len(l.Steps), l.Title.In(lang))
			}
			return w.Flush()
		},
	}
}

// newLabStartCommand is `ctl lab start NAME`.
func newLabStartCommand(o *labOptions) *cobra.Command {
	dir := lab.DefaultDir
	cmd := &cobra.Command{
		Use:   "start NAME [--dir kplane-lab]",
		Short: "Start a lab: write its files and show the first step",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lang, err := o.language()
			if err != nil {
				return err
			}
			l, err := lab.Find(args[0])
			if err != nil {
				return err
			}
			c, err := o.f.Client()
			if err != nil {
				return err
			}
			if err := lab.WriteFiles(l, dir); err != nil {
				return err
			}
			p, err := lab.Start(cmd.Context(), c, l, lang, dir)
			if err != nil {
				return err
			}
			out := o.f.out()
			fmt.Fprintln(out, lab.Textf(lab.Messages.Started, l.Name, l.Title.In(lang)).In(lang))
			fmt.Fprintln(out, l.Intro.In(lang))
			if len(l.Files) > 0 {
				fmt.Fprintln(out, lab.Textf(lab.Messages.Files, dir).In(lang))
			}
			printLabStep(out, l, p, lang)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", dir, "the directory the lab's files are written into")
	return cmd
}

// newLabCheckCommand is `ctl lab check`.
func newLabCheckCommand(o *labOptions) *cobra.Command {
	wait := 20 * time.Second
	cmd := &cobra.Command{
		Use:   "check [--wait 20s]",
		Short: "Check the current step against the cluster; go on to the next when it is done",
		Long: `check reads the cluster's state and says whether the current step is done. A
step just done may need a moment (a pod starting, a controller catching up),
so check looks again for up to --wait before it gives up. When the step is
done, check explains what happened inside the control plane and shows the
next step; when it is not, it says what it saw, gives a hint and exits 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := o.session(cmd.Context())
			if err != nil || s == nil {
				return err
			}
			out := o.f.out()
			number := s.progress.Step + 1
			step, err := lab.Check(cmd.Context(), s.client, s.lab, s.progress, wait, 250*time.Millisecond)
			if step == nil && err == nil {
				fmt.Fprintln(out, lab.Textf(lab.Messages.Finished, s.lab.Name).In(s.lang))
				return nil
			}
			if u, notYet := lab.AsUnmet(err); notYet {
				fmt.Fprintln(out, lab.Textf(lab.Messages.NotYet, number, u.Reason.In(s.lang)).In(s.lang))
				if hint, more := lab.FirstHint(step, s.progress.Dir, s.lang); hint != "" {
					fmt.Fprintln(out, lab.Textf(lab.Messages.Hint, hint).In(s.lang))
					if more {
						fmt.Fprintln(out, lab.Messages.NoHint.In(s.lang))
					}
				}
				return ExitError{Code: 1}
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(out, lab.Textf(lab.Messages.Passed, number, step.Title.In(s.lang)).In(s.lang))
			fmt.Fprintln(out, step.Explain.In(s.lang))
			fmt.Fprintln(out)
			if _, more := s.lab.Current(s.progress); !more {
				fmt.Fprintln(out, lab.Textf(lab.Messages.Finished, s.lab.Name).In(s.lang))
				return nil
			}
			printLabStep(out, s.lab, s.progress, s.lang)
			return nil
		},
	}
	cmd.Flags().DurationVar(&wait, "wait", wait, "how long to keep looking before saying the step is not done")
	return cmd
}

// newLabHintCommand is `ctl lab hint`.
func newLabHintCommand(o *labOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "hint",
		Short: "Show the current step's next hint",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := o.session(cmd.Context())
			if err != nil || s == nil {
				return err
			}
			hint, err := lab.NextHint(cmd.Context(), s.client, s.lab, s.progress)
			if err != nil {
				return err
			}
			fmt.Fprintln(o.f.out(), lab.Textf(lab.Messages.Hint, lab.ExpandDir(hint.In(s.lang), s.progress.Dir)).In(s.lang))
			return nil
		},
	}
}

// newLabResetCommand is `ctl lab reset`.
func newLabResetCommand(o *labOptions) *cobra.Command {
	wait := 60 * time.Second
	cmd := &cobra.Command{
		Use:   "reset [NAME]",
		Short: "Delete what the current lab (or lab NAME) created, and the progress",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lang, err := o.language()
			if err != nil {
				return err
			}
			c, err := o.f.Client()
			if err != nil {
				return err
			}
			name := ""
			if len(args) == 1 {
				name = args[0]
			} else {
				p, err := lab.LoadProgress(cmd.Context(), c)
				if err != nil {
					return err
				}
				if p == nil {
					fmt.Fprintln(o.f.out(), lab.Messages.NoLab.In(lang))
					return nil
				}
				name = p.Lab
			}
			l, err := lab.Find(name)
			if err != nil {
				return err
			}
			if err := lab.Reset(cmd.Context(), c, l, wait); err != nil {
				return err
			}
			fmt.Fprintln(o.f.out(), lab.Textf(lab.Messages.Reset, l.Name).In(lang))
			return nil
		},
	}
	cmd.Flags().DurationVar(&wait, "wait", wait, "how long to wait for the lab's objects to be gone")
	return cmd
}

// labSession is a started lab: its progress and what to read it with.
type labSession struct {
	client   *client.Client
	lab      *lab.Lab
	progress *lab.Progress
	lang     lab.Lang
}

// session loads the started lab; nil (after saying so) when none is.
func (o *labOptions) session(ctx context.Context) (*labSession, error) {
	lang, err := o.language()
	if err != nil {
		return nil, err
	}
	c, err := o.f.Client()
	if err != nil {
		return nil, err
	}
	p, err := lab.LoadProgress(ctx, c)
	if err != nil {
		return nil, err
	}
	if p == nil {
		fmt.Fprintln(o.f.out(), lab.Messages.NoLab.In(lang))
		return nil, ExitError{Code: 1}
	}
	l, err := lab.Find(p.Lab)
	if err != nil {
		return nil, err
	}
	return &labSession{client: c, lab: l, progress: p, lang: lang}, nil
}

// printLabStep shows the current step: its title, what to do, the
// commands, and what to run next.
func printLabStep(out io.Writer, l *lab.Lab, p *lab.Progress, lang lab.Lang) {
	step, ok := l.Current(p)
	if !ok {
		return
	}
	fmt.Fprintln(out, lab.Textf(lab.Messages.Step, p.Step+1, len(l.Steps), step.Title.In(lang)).In(lang))
	fmt.Fprintln(out, "  "+step.Do.In(lang))
	fmt.Fprintln(out, "  "+lab.Messages.Commands.In(lang))
	for _, c := range step.Commands {
		fmt.Fprintln(out, "    $ "+c.Expand(p.Dir))
	}
	fmt.Fprintln(out, lab.Messages.Then.In(lang))
}
