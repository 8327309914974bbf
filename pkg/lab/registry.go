package lab

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
)

// files holds the labs' YAML, copied from the seeds (examples/).
//
//go:embed files/*.yaml
var files embed.FS

// All returns every lab, in the order a course would take them.
func All() []*Lab {
	return []*Lab{
		jobPiLab(),
		replicaSetLab(),
		deploymentLab(),
		statefulSetLab(),
		daemonSetLab(),
		deletionLab(),
		namespaceLab(),
		quotaLab(),
		autoscalingLab(),
		failoverLab(),
		relistLab(),
	}
}

// Find returns the lab called name.
func Find(name string) (*Lab, error) {
	for _, l := range All() {
		if l.Name == name {
			return l, nil
		}
	}
	return nil, fmt.Errorf("no lab %q (ctl lab list shows the labs)", name)
}

// File returns one of the lab's embedded files.
func File(name string) ([]byte, error) {
	data, err := files.ReadFile("files/" + name)
	if err != nil {
		return nil, fmt.Errorf("lab file %s: %w", name, err)
	}
	return data, nil
}

// WriteFiles writes l's files into dir, creating it, so that the steps'
// commands find them as {dir}/NAME.
func WriteFiles(l *Lab, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("lab directory: %w", err)
	}
	for _, name := range l.Files {
		data, err := File(name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("write lab file: %w", err)
		}
	}
	return nil
}
