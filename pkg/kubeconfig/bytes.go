package kubeconfig

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"
)

// Parse reads a kubeconfig from memory, such as the one kube-public's
// cluster-info ConfigMap carries. Relative paths stay as they are: there
// is no file to resolve them against.
func Parse(data []byte) (*Config, error) {
	var c Config
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("parse kubeconfig: %w", err)
	}
	return &c, nil
}

// Marshal encodes c as WriteFile writes it.
func (c *Config) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("encode kubeconfig: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode kubeconfig: %w", err)
	}
	return buf.Bytes(), nil
}
