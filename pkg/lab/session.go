package lab

import (
	"context"
	"fmt"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// Start begins l in lang, its files in dir: runs its Prepare and saves
// the progress at the first step, replacing the progress of any other lab.
func Start(ctx context.Context, c *client.Client, l *Lab, lang Lang, dir string) (*Progress, error) {
	p := &Progress{Lab: l.Name, Lang: lang, Dir: dir, Memo: map[string]string{}}
	if l.Prepare != nil {
		if err := l.Prepare(ctx, &Env{Client: c, Memo: p.Memo}); err != nil {
			return nil, fmt.Errorf("prepare lab %s: %w", l.Name, err)
		}
	}
	if err := SaveProgress(ctx, c, p); err != nil {
		return nil, err
	}
	return p, nil
}

// Current returns the step p points at, or false once l is finished.
func (l *Lab) Current(p *Progress) (*Step, bool) {
	if p.Step < 0 || p.Step >= len(l.Steps) {
		return nil, false
	}
	return &l.Steps[p.Step], true
}

// CheckStep runs step's check until it passes or wait has passed, every
// interval, and returns the last answer: nil, an *Unmet, or the error
// that stopped it. A controller acts within moments of a command, so a
// short wait spares the student a second `ctl lab check`.
func CheckStep(ctx context.Context, env *Env, step *Step, wait, interval time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := step.Check(ctx, env)
		if _, notYet := AsUnmet(err); !notYet || !time.Now().Before(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(interval):
		}
	}
}

// Check checks p's current step of l and, when it passes, moves p to the
// next step and saves it. It returns the step checked and the check's
// answer (nil: passed; an *Unmet: not yet).
func Check(ctx context.Context, c *client.Client, l *Lab, p *Progress, wait, interval time.Duration) (*Step, error) {
	step, ok := l.Current(p)
	if !ok {
		return nil, nil
	}
	env := &Env{Client: c, Memo: p.Memo}
	if err := CheckStep(ctx, env, step, wait, interval); err != nil {
		return step, err
	}
	p.Step++
	p.Hints = 0
	return step, SaveProgress(ctx, c, p)
}

// NextHint returns the current step's next hint (the last one again once
// all were shown) and counts it in the progress.
func NextHint(ctx context.Context, c *client.Client, l *Lab, p *Progress) (Text, error) {
	step, ok := l.Current(p)
	if !ok || len(step.Hints) == 0 {
		return Text{}, fmt.Errorf("lab %s has no step left to hint at", l.Name)
	}
	hint := step.Hints[min(p.Hints, len(step.Hints)-1)]
	if p.Hints < len(step.Hints) {
		p.Hints++
		if err := SaveProgress(ctx, c, p); err != nil {
			return Text{}, err
		}
	}
	return hint, nil
}

// Reset deletes what l's steps created — the owners in the foreground, so
// that an owner is gone only once its dependents are — waits up to wait
// until it is gone, and forgets the progress.
func Reset(ctx context.Context, c *client.Client, l *Lab, wait time.Duration) error {
	foreground := api.DeletePropagationForeground
	for _, o := range l.Cleanup {
		opts := client.DeleteOptions{PropagationPolicy: &foreground}
		objects := c.Dynamic(o.Resource).Namespace(o.Namespace)
		var err error
		if o.Selector != "" {
			err = objects.DeleteCollection(ctx, opts, client.ListOptions{LabelSelector: o.Selector})
		} else {
			err = objects.Delete(ctx, o.Name, opts)
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("reset lab %s: delete %s %s: %w", l.Name, o.Resource.Resource, o.describe(), err)
		}
	}
	deadline := time.Now().Add(wait)
	for _, o := range l.Cleanup {
		for {
			gone, err := o.gone(ctx, c)
			if err != nil {
				return fmt.Errorf("reset lab %s: %w", l.Name, err)
			}
			if gone {
				break
			}
			if !time.Now().Before(deadline) {
				return fmt.Errorf("reset lab %s: %s %s still there after %v", l.Name, o.Resource.Resource, o.describe(), wait)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return DeleteProgress(ctx, c)
}

// describe names o in messages.
func (o Object) describe() string {
	where := o.Name
	if o.Selector != "" {
		where = "-l " + o.Selector
	}
	if o.Namespace != "" {
		where += " -n " + o.Namespace
	}
	return where
}

// gone reports whether o no longer exists.
func (o Object) gone(ctx context.Context, c *client.Client) (bool, error) {
	objects := c.Dynamic(o.Resource).Namespace(o.Namespace)
	if o.Selector != "" {
		list, err := objects.List(ctx, client.ListOptions{LabelSelector: o.Selector})
		if err != nil {
			return false, fmt.Errorf("list %s -l %s: %w", o.Resource.Resource, o.Selector, err)
		}
		return len(list.Items) == 0, nil
	}
	_, err := objects.Get(ctx, o.Name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}
