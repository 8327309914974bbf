package ctl

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"kplane/pkg/kubeconfig"
)

// newConfigViewCommand is `ctl config view`.
func newConfigViewCommand(f *factory) *cobra.Command {
	var minify, raw bool
	var output string
	cmd := &cobra.Command{
		Use:   "view",
		Short: "Display merged kubeconfig settings or a specified kubeconfig file",
		Long: `view prints the kubeconfig as kubectl does — YAML with sorted keys, or JSON
in the field order of the kubeconfig format — with certificates and keys
shown as DATA+OMITTED and tokens as REDACTED unless --raw is given.
--minify keeps only the current context (or --context) and the cluster and
user it names.`,
		Example: `  ctl config view
  ctl config view --minify --raw
  ctl config view -o jsonpath='{.contexts[*].name}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := parseOutput(output, "yaml", "json")
			if err != nil {
				return err
			}
			kc, _, err := loadKubeconfig(f)
			if err != nil {
				return err
			}
			if minify {
				if kc, err = minified(kc, f.contextFlag); err != nil {
					return err
				}
			}
			doc := newViewConfig(kc, raw)
			if out.name == "jsonpath" {
				// JSONPath walks maps, not structs.
				data, err := json.Marshal(doc)
				if err != nil {
					return err
				}
				m, err := decodeObject(data)
				if err != nil {
					return err
				}
				return out.printDocument(f.out(), m)
			}
			return out.printDocument(f.out(), doc)
		},
	}
	cmd.Flags().BoolVar(&minify, "minify", false, "only the current context and what it uses")
	cmd.Flags().BoolVar(&raw, "raw", false, "show certificates, keys and tokens as they are")
	cmd.Flags().StringVarP(&output, "output", "o", "yaml", "output format: yaml, json or jsonpath=TEMPLATE")
	return cmd
}

// minified keeps the named context (else the current one) and its cluster
// and user.
func minified(kc *kubeconfig.Config, contextName string) (*kubeconfig.Config, error) {
	if contextName == "" {
		contextName = kc.CurrentContext
	}
	if contextName == "" {
		return nil, errors.New("current-context must exist in order to minify")
	}
	out := &kubeconfig.Config{APIVersion: kc.APIVersion, Kind: kc.Kind, CurrentContext: contextName}
	var ctx *kubeconfig.NamedContext
	for i := range kc.Contexts {
		if kc.Contexts[i].Name == contextName {
			ctx = &kc.Contexts[i]
		}
	}
	if ctx == nil {
		return nil, fmt.Errorf("cannot locate context %s", contextName)
	}
	out.Contexts = []kubeconfig.NamedContext{*ctx}
	for _, c := range kc.Clusters {
		if c.Name == ctx.Context.Cluster {
			out.Clusters = append(out.Clusters, c)
		}
	}
	for _, u := range kc.Users {
		if u.Name == ctx.Context.User {
			out.Users = append(out.Users, u)
		}
	}
	return out, nil
}

// The view's document. Field order and JSON names are those of upstream's
// clientcmd v1 types, so -o json prints what kubectl prints; -o yaml sorts
// the keys anyway.
type (
	viewConfig struct {
		Kind           string        `json:"kind,omitempty"`
		APIVersion     string        `json:"apiVersion,omitempty"`
		Preferences    struct{}      `json:"preferences"`
		Clusters       []viewCluster `json:"clusters"`
		Users          []viewUser    `json:"users"`
		Contexts       []viewContext `json:"contexts"`
		CurrentContext string        `json:"current-context"`
	}
	viewCluster struct {
		Name    string `json:"name"`
		Cluster struct {
			Server                   string `json:"server"`
			TLSServerName            string `json:"tls-server-name,omitempty"`
			InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify,omitempty"`
			CertificateAuthority     string `json:"certificate-authority,omitempty"`
			CertificateAuthorityData string `json:"certificate-authority-data,omitempty"`
		} `json:"cluster"`
	}
	viewUser struct {
		Name string `json:"name"`
		User struct {
			ClientCertificate     string         `json:"client-certificate,omitempty"`
			ClientCertificateData string         `json:"client-certificate-data,omitempty"`
			ClientKey             string         `json:"client-key,omitempty"`
			ClientKeyData         string         `json:"client-key-data,omitempty"`
			Token                 string         `json:"token,omitempty"`
			TokenFile             string         `json:"tokenFile,omitempty"`
			AuthProvider          map[string]any `json:"auth-provider,omitempty"`
			Exec                  map[string]any `json:"exec,omitempty"`
		} `json:"user"`
	}
	viewContext struct {
		Name    string `json:"name"`
		Context struct {
			Cluster   string `json:"cluster"`
			User      string `json:"user"`
			Namespace string `json:"namespace,omitempty"`
		} `json:"context"`
	}
)

// Placeholders kubectl shows for secrets without --raw.
const (
	redactedData   = "DATA+OMITTED"
	redactedSecret = "REDACTED"
)

// newViewConfig builds the document view prints, secrets redacted unless
// raw.
func newViewConfig(kc *kubeconfig.Config, raw bool) viewConfig {
	data := func(b []byte) string {
		switch {
		case len(b) == 0:
			return ""
		case raw:
			return base64.StdEncoding.EncodeToString(b)
		default:
			return redactedData
		}
	}
	secret := func(s string) string {
		if s == "" || raw {
			return s
		}
		return redactedSecret
	}
	v := viewConfig{Kind: kc.Kind, APIVersion: kc.APIVersion, CurrentContext: kc.CurrentContext}
	if v.Kind == "" {
		v.Kind, v.APIVersion = "Config", "v1"
	}
	for _, c := range kc.Clusters {
		var vc viewCluster
		vc.Name = c.Name
		vc.Cluster.Server = c.Cluster.Server
		vc.Cluster.TLSServerName = c.Cluster.TLSServerName
		vc.Cluster.InsecureSkipTLSVerify = c.Cluster.InsecureSkipTLSVerify
		vc.Cluster.CertificateAuthority = c.Cluster.CertificateAuthority
		vc.Cluster.CertificateAuthorityData = data(c.Cluster.CertificateAuthorityData)
		v.Clusters = append(v.Clusters, vc)
	}
	for _, u := range kc.Users {
		var vu viewUser
		vu.Name = u.Name
		vu.User.ClientCertificate = u.User.ClientCertificate
		vu.User.ClientCertificateData = data(u.User.ClientCertificateData)
		vu.User.ClientKey = u.User.ClientKey
		vu.User.ClientKeyData = data(u.User.ClientKeyData)
		vu.User.Token = secret(u.User.Token)
		vu.User.TokenFile = u.User.TokenFile
		vu.User.AuthProvider = u.User.AuthProvider
		vu.User.Exec = u.User.Exec
		v.Users = append(v.Users, vu)
	}
	for _, c := range kc.Contexts {
		var vc viewContext
		vc.Name = c.Name
		vc.Context.Cluster = c.Context.Cluster
		vc.Context.User = c.Context.User
		vc.Context.Namespace = c.Context.Namespace
		v.Contexts = append(v.Contexts, vc)
	}
	return v
}
