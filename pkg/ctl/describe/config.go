package describe

import (
	"maps"
	"slices"

	"kplane/pkg/api"
)

// describeConfigMap prints a ConfigMap with every value in full under its
// key, then the sizes of the binary values.
func describeConfigMap(in Input, s Settings) (string, error) {
	cm, err := decode[api.ConfigMap](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", cm.Name)
		w.write(level0, "Namespace:\t%s\n", cm.Namespace)
		printLabelsMultiline(w, "Labels", cm.Labels)
		printAnnotationsMultiline(w, "Annotations", cm.Annotations)
		w.write(level0, "\nData\n====\n")
		for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
			w.write(level0, "%s:\n----\n", k)
			w.write(level0, "%s\n", cm.Data[k])
			w.write(level0, "\n")
		}
		w.write(level0, "\nBinaryData\n====\n")
		for _, k := range slices.Sorted(maps.Keys(cm.BinaryData)) {
			w.write(level0, "%s: %d bytes\n", k, len(cm.BinaryData[k]))
		}
		w.write(level0, "\n")
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

// serviceAccountTokenKey is the key of a token Secret's token, which
// kubectl shows in full (every other Secret value only by size).
const serviceAccountTokenKey = "token"

// describeSecret prints a Secret's type and, per key, the size of its
// value — never the value, except a service account token.
func describeSecret(in Input, s Settings) (string, error) {
	secret, err := decode[api.Secret](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", secret.Name)
		w.write(level0, "Namespace:\t%s\n", secret.Namespace)
		printLabelsMultiline(w, "Labels", secret.Labels)
		printAnnotationsMultiline(w, "Annotations", secret.Annotations)
		w.write(level0, "\nType:\t%s\n", secret.Type)
		w.write(level0, "\nData\n====\n")
		for _, k := range slices.Sorted(maps.Keys(secret.Data)) {
			if k == serviceAccountTokenKey && secret.Type == api.SecretTypeServiceAccountToken {
				w.write(level0, "%s:\t%s\n", k, string(secret.Data[k]))
			} else {
				w.write(level0, "%s:\t%d bytes\n", k, len(secret.Data[k]))
			}
		}
	}), nil
}

// Annotations that tie a legacy token Secret to its ServiceAccount.
const (
	serviceAccountNameAnnotation = "kubernetes.io/service-account.name"
	serviceAccountUIDAnnotation  = "kubernetes.io/service-account.uid"
)

// describeServiceAccount prints a ServiceAccount's image pull secrets,
// mountable secrets and token Secrets (the last two are legacy that
// kubectl 1.32 still shows). With the namespace's Secrets at hand
// (related.Secrets), a listed secret that does not exist is marked
// "(not found)".
func describeServiceAccount(in Input, s Settings) (string, error) {
	sa, err := decode[api.ServiceAccount](in.Object)
	if err != nil {
		return "", err
	}
	var tokens []string
	missing := map[string]bool{}
	if in.Related.Secrets != nil {
		existing := map[string]bool{}
		for _, secret := range *in.Related.Secrets {
			if secret.Type == api.SecretTypeServiceAccountToken &&
				secret.Annotations[serviceAccountNameAnnotation] == sa.Name &&
				secret.Annotations[serviceAccountUIDAnnotation] == sa.UID {
				tokens = append(tokens, secret.Name)
			}
			existing[secret.Name] = true
		}
		for _, ref := range sa.Secrets {
			missing[ref.Name] = !existing[ref.Name]
		}
		for _, ref := range sa.ImagePullSecrets {
			missing[ref.Name] = !existing[ref.Name]
		}
	}
	var pull, mount []string
	for _, ref := range sa.ImagePullSecrets {
		pull = append(pull, ref.Name)
	}
	for _, ref := range sa.Secrets {
		mount = append(mount, ref.Name)
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", sa.Name)
		w.write(level0, "Namespace:\t%s\n", sa.Namespace)
		printLabelsMultiline(w, "Labels", sa.Labels)
		printAnnotationsMultiline(w, "Annotations", sa.Annotations)
		// The headers are padded to one width so that the lines of a
		// second name (a blank header) line up with the first.
		const blank = "                   "
		for _, section := range []struct {
			header string
			names  []string
		}{
			{"Image pull secrets:", pull},
			{"Mountable secrets: ", mount},
			{"Tokens:            ", tokens},
		} {
			if len(section.names) == 0 {
				w.write(level0, "%s\t<none>\n", section.header)
				continue
			}
			header := section.header
			for _, name := range section.names {
				if missing[name] {
					w.write(level0, "%s\t%s (not found)\n", header, name)
				} else {
					w.write(level0, "%s\t%s\n", header, name)
				}
				header = blank
			}
		}
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}
