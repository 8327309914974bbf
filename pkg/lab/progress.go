package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// Where the progress lives: a ConfigMap in kube-system. In the cluster
// rather than in the data dir, because the web page reads it through
// the API with the same credentials as `ctl lab`, and a cluster whose
// data dir is elsewhere (another machine, `ctl join`) still has one
// progress; kube-system, because it is cluster-wide state, like the
// leader-election Leases.
const (
	ProgressNamespace = "kube-system"
	ProgressName      = "kplane-lab"
)

// Progress is where a student is: the lab, its current step and how many
// of that step's hints were shown.
type Progress struct {
	// Lab is the lab's Name.
	Lab string
	// Step is the index of the current step; len(Steps) when the lab is
	// finished.
	Step int
	// Hints is how many hints of the current step were shown.
	Hints int
	// Lang is the language the lab was started in, for the web page.
	Lang Lang
	// Dir is the directory `ctl lab start` wrote the lab's files into:
	// what "{dir}" in the commands stands for.
	Dir string
	// Memo is what Prepare and the checks recorded (Env.Memo).
	Memo map[string]string
}

// The ConfigMap's keys.
const (
	keyLab   = "lab"
	keyStep  = "step"
	keyHints = "hints"
	keyLang  = "lang"
	keyMemo  = "memo"
	keyDir   = "dir"
)

// LoadProgress reads the progress; nil, nil when no lab was started.
func LoadProgress(ctx context.Context, c *client.Client) (*Progress, error) {
	cm, err := c.ConfigMaps(ProgressNamespace).Get(ctx, ProgressName, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lab progress: %w", err)
	}
	return progressFrom(cm)
}

// progressFrom decodes the ConfigMap's data.
func progressFrom(cm *api.ConfigMap) (*Progress, error) {
	p := &Progress{Lab: cm.Data[keyLab], Lang: Lang(cm.Data[keyLang]), Dir: cm.Data[keyDir], Memo: map[string]string{}}
	var err error
	if p.Step, err = strconv.Atoi(cm.Data[keyStep]); err != nil {
		return nil, fmt.Errorf("lab progress %s/%s: step: %w", ProgressNamespace, ProgressName, err)
	}
	if p.Hints, err = strconv.Atoi(cm.Data[keyHints]); err != nil {
		return nil, fmt.Errorf("lab progress %s/%s: hints: %w", ProgressNamespace, ProgressName, err)
	}
	if memo := cm.Data[keyMemo]; memo != "" {
		if err := json.Unmarshal([]byte(memo), &p.Memo); err != nil {
			return nil, fmt.Errorf("lab progress %s/%s: memo: %w", ProgressNamespace, ProgressName, err)
		}
	}
	return p, nil
}

// SaveProgress writes p, creating the ConfigMap the first time.
func SaveProgress(ctx context.Context, c *client.Client, p *Progress) error {
	memo, err := json.Marshal(p.Memo)
	if err != nil {
		return fmt.Errorf("encode lab memo: %w", err)
	}
	data := map[string]string{
		keyLab:   p.Lab,
		keyStep:  strconv.Itoa(p.Step),
		keyHints: strconv.Itoa(p.Hints),
		keyLang:  string(p.Lang),
		keyMemo:  string(memo),
		keyDir:   p.Dir,
	}
	configMaps := c.ConfigMaps(ProgressNamespace)
	cm, err := configMaps.Get(ctx, ProgressName, client.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		cm = &api.ConfigMap{ObjectMeta: api.ObjectMeta{
			Name: ProgressName, Namespace: ProgressNamespace,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "kplane-lab"},
		}, Data: data}
		_, err = configMaps.Create(ctx, cm, client.CreateOptions{FieldManager: "kplane-lab"})
	case err == nil:
		cm.Data = data
		_, err = configMaps.Update(ctx, cm, client.UpdateOptions{FieldManager: "kplane-lab"})
	}
	if err != nil {
		return fmt.Errorf("save lab progress: %w", err)
	}
	return nil
}

// DeleteProgress forgets the progress; no error when there is none.
func DeleteProgress(ctx context.Context, c *client.Client) error {
	err := c.ConfigMaps(ProgressNamespace).Delete(ctx, ProgressName, client.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete lab progress: %w", err)
	}
	return nil
}
