package kubeconfig

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"kplane/pkg/fileutil"
)

// Load reads a kubeconfig file. Relative file paths inside it
// (certificate-authority, client-certificate, client-key, tokenFile) are made
// absolute against the file's own directory, as kubectl does, so the result
// does not depend on the working directory. An empty file is an empty Config.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	var c Config
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("load kubeconfig %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig %s: %w", path, err)
	}
	base := filepath.Dir(abs)
	for i := range c.Clusters {
		resolvePath(base, &c.Clusters[i].Cluster.CertificateAuthority)
	}
	for i := range c.Users {
		u := &c.Users[i].User
		resolvePath(base, &u.ClientCertificate)
		resolvePath(base, &u.ClientKey)
		resolvePath(base, &u.TokenFile)
	}
	return &c, nil
}

func resolvePath(base string, p *string) {
	if *p != "" && !filepath.IsAbs(*p) {
		*p = filepath.Join(base, *p)
	}
}

// WriteFile writes c as YAML to path with mode 0600 (it holds credentials).
// The file is replaced atomically, so kubectl running at the same moment
// reads either the old file or the new one.
func (c *Config) WriteFile(path string) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("encode kubeconfig: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encode kubeconfig: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	if err := fileutil.WriteAtomic(path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	return nil
}
