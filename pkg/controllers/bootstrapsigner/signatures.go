package bootstrapsigner

import (
	"maps"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/bootstraptoken"
)

// desiredSignatures are the JWS keys cluster-info should carry for
// content: one per bootstrap token Secret usable for signing at now.
func desiredSignatures(content string, secrets []*api.Secret, now time.Time) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range secrets {
		token, ok := bootstraptoken.Usable(s, "signing", now)
		if !ok {
			continue
		}
		jws, err := bootstraptoken.DetachedJWS(content, token)
		if err != nil {
			return nil, err
		}
		out[bootstraptoken.JWSKeyPrefix+token.ID] = jws
	}
	return out, nil
}

// currentSignatures are the JWS keys data carries.
func currentSignatures(data map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range data {
		if strings.HasPrefix(k, bootstraptoken.JWSKeyPrefix) {
			out[k] = v
		}
	}
	return out
}

// withSignatures returns data with its JWS keys replaced by signatures,
// every other key kept.
func withSignatures(data, signatures map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range data {
		if !strings.HasPrefix(k, bootstraptoken.JWSKeyPrefix) {
			out[k] = v
		}
	}
	maps.Copy(out, signatures)
	return out
}
