package ctl

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// The `ctl create secret` subcommands. A Secret's data travels base64
// encoded; kubectl encodes it on the client, so -o yaml shows the encoded
// values (base64 is an encoding, not encryption: anyone who may read the
// Secret reads the values).

// newCreateSecretCommand is `ctl create secret`.
func newCreateSecretCommand(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secret (docker-registry | generic | tls)",
		Short: "Create a Secret of one of three kinds",
		Long: `secret creates a Secret: generic (type Opaque unless --type says
otherwise) from literals and files, tls from a certificate and its key,
docker-registry with the credentials a kubelet pulls private images with.`,
		Args: cobra.NoArgs,
		RunE: helpWithoutSubcommand,
	}
	cmd.AddCommand(newCreateSecretGenericCommand(f))
	cmd.AddCommand(newCreateSecretTLSCommand(f))
	cmd.AddCommand(newCreateSecretDockerRegistryCommand(f))
	return cmd
}

// secretObject is a generated Secret; secretType "" leaves the type to the
// server (Opaque).
func secretObject(name, secretType string, data map[string]any) map[string]any {
	obj := map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": name, "creationTimestamp": nil},
	}
	if len(data) > 0 {
		encoded := make(map[string]any, len(data))
		for k, v := range data {
			encoded[k] = base64.StdEncoding.EncodeToString([]byte(v.(string)))
		}
		obj["data"] = encoded
	}
	if secretType != "" {
		obj["type"] = secretType
	}
	return obj
}

// createSecret creates a generated Secret, with kubectl's wording of a
// failure ("failed to create secret <API message>", no colon).
func createSecret(cmd *cobra.Command, f *factory, w *writeFlags, obj map[string]any) error {
	err := generatedAs(cmd.Context(), f, w, obj, "", "created")
	if isAPIError(err) {
		return fmt.Errorf("failed to create secret %v", err)
	}
	return err
}

// newCreateSecretGenericCommand is `ctl create secret generic`.
func newCreateSecretGenericCommand(f *factory) *cobra.Command {
	var w writeFlags
	var literals, files, envFiles []string
	var secretType string
	cmd := &cobra.Command{
		Use:   "generic NAME [--type=string] [--from-file=[key=]source] [--from-literal=key1=value1] [--dry-run=server|client|none]",
		Short: "Create a secret from literal values, files or env files",
		Long: `generic creates a Secret whose keys come from --from-literal pairs, from
files (--from-file=path: the file's name is the key; key=path chooses it; a
directory gives one key per file) and from --from-env-file lines.`,
		Example: `  ctl create secret generic db --from-literal=user=admin --from-literal=password=s3cret
  ctl create secret generic certs --from-file=./certs/`,
		Args: exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := dataFromSources(literals, files, envFiles, "Secret", args[0])
			if err != nil {
				return err
			}
			return createSecret(cmd, f, &w, secretObject(args[0], secretType, data))
		},
	}
	flags := cmd.Flags()
	flags.StringArrayVar(&literals, "from-literal", nil, "a key and a literal value (key=value); repeat for more")
	flags.StringSliceVar(&files, "from-file", nil, "a file ([key=]path) or a directory whose files become keys")
	flags.StringSliceVar(&envFiles, "from-env-file", nil, "a file of KEY=value lines (blank lines and # comments skipped)")
	flags.StringVar(&secretType, "type", "", "the Secret's type (default: Opaque, set by the server)")
	w.add(flags, "kubectl-create")
	return cmd
}

// newCreateSecretTLSCommand is `ctl create secret tls`.
func newCreateSecretTLSCommand(f *factory) *cobra.Command {
	var w writeFlags
	var certFile, keyFile string
	cmd := &cobra.Command{
		Use:   "tls NAME --cert=path/to/cert/file --key=path/to/key/file [--dry-run=server|client|none]",
		Short: "Create a TLS secret from a certificate and its key",
		Long: `tls creates a Secret of type kubernetes.io/tls holding a PEM certificate
(tls.crt) and its private key (tls.key), what an Ingress terminates TLS
with.`,
		Example: "  ctl create secret tls web-tls --cert=web.crt --key=web.key",
		Args:    exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			if certFile == "" || keyFile == "" {
				return fmt.Errorf("key and cert must be specified")
			}
			cert, err := os.ReadFile(certFile)
			if err != nil {
				return fmt.Errorf("Cannot read file %s, %w", certFile, err)
			}
			key, err := os.ReadFile(keyFile)
			if err != nil {
				return fmt.Errorf("Cannot read file %s, %w", keyFile, err)
			}
			data := map[string]any{"tls.crt": string(cert), "tls.key": string(key)}
			return createSecret(cmd, f, &w, secretObject(args[0], "kubernetes.io/tls", data))
		},
	}
	cmd.Flags().StringVar(&certFile, "cert", "", "the PEM certificate file")
	cmd.Flags().StringVar(&keyFile, "key", "", "the PEM private key file")
	w.add(cmd.Flags(), "kubectl-create")
	return cmd
}

// newCreateSecretDockerRegistryCommand is `ctl create secret
// docker-registry`.
func newCreateSecretDockerRegistryCommand(f *factory) *cobra.Command {
	var w writeFlags
	var server, username, password, email string
	var files []string
	cmd := &cobra.Command{
		Use:   "docker-registry NAME --docker-username=user --docker-password=password --docker-email=email [--docker-server=string] [--from-file=[key=]source] [--dry-run=server|client|none]",
		Short: "Create a secret for pulling images from a registry",
		Long: `docker-registry creates a Secret of type kubernetes.io/dockerconfigjson: a
.dockerconfigjson key holding the registry's credentials in the format of
Docker's config.json. A pod names it in imagePullSecrets.`,
		Example: "  ctl create secret docker-registry regcred --docker-server=registry.example.com --docker-username=me --docker-password=s3cret",
		Args:    exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			var data map[string]any
			if len(files) > 0 {
				var err error
				if data, err = dataFromSources(nil, files, nil, "Secret", args[0]); err != nil {
					return err
				}
			} else {
				if username == "" || password == "" || server == "" {
					return fmt.Errorf("either --from-file or the combination of --docker-username, --docker-password and --docker-server is required")
				}
				config, err := dockerConfigJSON(server, username, password, email)
				if err != nil {
					return err
				}
				data = map[string]any{".dockerconfigjson": config}
			}
			return createSecret(cmd, f, &w, secretObject(args[0], "kubernetes.io/dockerconfigjson", data))
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&server, "docker-server", "https://index.docker.io/v1/", "the registry's address")
	flags.StringVar(&username, "docker-username", "", "the registry user name")
	flags.StringVar(&password, "docker-password", "", "the registry password")
	flags.StringVar(&email, "docker-email", "", "the registry email (optional)")
	flags.StringSliceVar(&files, "from-file", nil, "a Docker config file ([key=]path) instead of the flags above")
	w.add(flags, "kubectl-create")
	return cmd
}

// dockerConfigJSON is the .dockerconfigjson document for one registry,
// with the fields in Docker's order and "auth" the base64 of user:password.
func dockerConfigJSON(server, username, password, email string) (string, error) {
	type entry struct {
		Username string `json:"username,omitempty"`
		Password string `json:"password,omitempty"`
		Email    string `json:"email,omitempty"`
		Auth     string `json:"auth,omitempty"`
	}
	doc := struct {
		Auths map[string]entry `json:"auths"`
	}{Auths: map[string]entry{server: {
		Username: username, Password: password, Email: email,
		Auth: base64.StdEncoding.EncodeToString([]byte(username + ":" + password)),
	}}}
	data, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("encode .dockerconfigjson: %w", err)
	}
	return string(data), nil
}
