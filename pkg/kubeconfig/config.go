// Package kubeconfig reads and writes kubeconfig files: the YAML that tells
// kubectl (and kplane's own clients) where the apiserver is, how to trust its
// certificate and which credential to present.
//
// A kubeconfig holds three lists and a pointer. Clusters say where a server
// is and which CA signed its certificate; users hold credentials; contexts
// pair one cluster with one user (and a default namespace); current-context
// names the context to use. Resolve follows that pointer and returns just
// what a client needs to connect.
package kubeconfig

import (
	"encoding/base64"
	"fmt"

	"gopkg.in/yaml.v3"
)

// Names kplane uses for the admin kubeconfig it writes at DATA_DIR/kubeconfig,
// the way kubeadm names admin.conf's entries.
const (
	AdminClusterName = "kplane"
	AdminUserName    = "kubernetes-admin"
	AdminContextName = AdminUserName + "@" + AdminClusterName
)

// Config is a kubeconfig file (apiVersion v1, kind Config). Field names and
// YAML keys follow upstream's clientcmd v1 types; fields kplane does not use
// (extensions, proxy-url, …) are dropped when a file is loaded.
type Config struct {
	APIVersion     string         `yaml:"apiVersion"`
	Kind           string         `yaml:"kind"`
	Clusters       []NamedCluster `yaml:"clusters"`
	Users          []NamedUser    `yaml:"users"`
	Contexts       []NamedContext `yaml:"contexts"`
	CurrentContext string         `yaml:"current-context"`
	Preferences    Preferences    `yaml:"preferences"`
}

// NamedCluster is one entry of the clusters list.
type NamedCluster struct {
	Name    string  `yaml:"name"`
	Cluster Cluster `yaml:"cluster"`
}

// Cluster says where an apiserver is and how to verify its certificate.
type Cluster struct {
	// Server is the apiserver's URL, e.g. https://127.0.0.1:6443.
	Server string `yaml:"server"`
	// TLSServerName, when set, is the name checked against the server's
	// certificate instead of the host in Server.
	TLSServerName string `yaml:"tls-server-name,omitempty"`
	// InsecureSkipTLSVerify turns certificate checking off. It cannot be
	// combined with a CA.
	InsecureSkipTLSVerify bool `yaml:"insecure-skip-tls-verify,omitempty"`
	// CertificateAuthority is the path of a PEM file with the CA; relative
	// paths are relative to the kubeconfig file.
	CertificateAuthority string `yaml:"certificate-authority,omitempty"`
	// CertificateAuthorityData is the CA's PEM itself; it wins over
	// CertificateAuthority when both are set, as in kubectl.
	CertificateAuthorityData Base64Bytes `yaml:"certificate-authority-data,omitempty"`
}

// NamedUser is one entry of the users list.
type NamedUser struct {
	Name string   `yaml:"name"`
	User AuthInfo `yaml:"user"`
}

// AuthInfo is a user's credentials: a bearer token, a client certificate, or
// both. (Upstream calls this type AuthInfo; in YAML it is the `user` key.)
type AuthInfo struct {
	ClientCertificate     string      `yaml:"client-certificate,omitempty"`
	ClientCertificateData Base64Bytes `yaml:"client-certificate-data,omitempty"`
	ClientKey             string      `yaml:"client-key,omitempty"`
	ClientKeyData         Base64Bytes `yaml:"client-key-data,omitempty"`
	Token                 string      `yaml:"token,omitempty"`
	// TokenFile is a file holding the bearer token. When both are set,
	// upstream lets the file's content take precedence over Token.
	TokenFile string `yaml:"tokenFile,omitempty"`
	// Exec and AuthProvider are kept so a kubeconfig from a cloud cluster
	// survives a load and write, but kplane's client cannot run credential
	// plugins; Resolve reports that rather than sending no credentials.
	Exec         map[string]any `yaml:"exec,omitempty"`
	AuthProvider map[string]any `yaml:"auth-provider,omitempty"`
}

// NamedContext is one entry of the contexts list.
type NamedContext struct {
	Name    string  `yaml:"name"`
	Context Context `yaml:"context"`
}

// Context pairs a cluster with a user, by name, and optionally picks the
// namespace commands use when none is given.
type Context struct {
	Cluster   string `yaml:"cluster"`
	User      string `yaml:"user"`
	Namespace string `yaml:"namespace,omitempty"`
}

// Preferences is kept for the file's shape (kubectl writes `preferences: {}`);
// it has no fields kplane uses.
type Preferences struct{}

// Base64Bytes is binary data written as a base64 string in YAML, the way
// the *-data fields of a kubeconfig hold PEM files.
type Base64Bytes []byte

// MarshalYAML writes the bytes as standard base64.
func (b Base64Bytes) MarshalYAML() (any, error) {
	return base64.StdEncoding.EncodeToString(b), nil
}

// UnmarshalYAML reads a base64 string.
func (b *Base64Bytes) UnmarshalYAML(node *yaml.Node) error {
	if node.Tag == "!!null" {
		*b = nil
		return nil
	}
	var s string
	if err := node.Decode(&s); err != nil {
		return err
	}
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("line %d: invalid base64 data: %w", node.Line, err)
	}
	*b = data
	return nil
}

// New returns a kubeconfig with one cluster, one user authenticating with a
// bearer token, and one context "<userName>@<clusterName>" joining them,
// selected as current. caPEM is the CA that signed the server's certificate.
// kplane's apiserver writes its admin file with
// New(AdminClusterName, url, caPEM, AdminUserName, token).
func New(clusterName, server string, caPEM []byte, userName, token string) *Config {
	contextName := userName + "@" + clusterName
	return &Config{
		APIVersion: "v1",
		Kind:       "Config",
		Clusters: []NamedCluster{{
			Name:    clusterName,
			Cluster: Cluster{Server: server, CertificateAuthorityData: Base64Bytes(caPEM)},
		}},
		Users: []NamedUser{{
			Name: userName,
			User: AuthInfo{Token: token},
		}},
		Contexts: []NamedContext{{
			Name:    contextName,
			Context: Context{Cluster: clusterName, User: userName},
		}},
		CurrentContext: contextName,
	}
}
