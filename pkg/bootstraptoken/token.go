package bootstraptoken

import (
	"crypto/rand"
	"crypto/subtle"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"

	"kplane/pkg/api"
)

// The Secret that stores a bootstrap token: its namespace, name prefix
// and type, and the keys of its data (k8s.io/cluster-bootstrap/token/api).
const (
	SecretNamespace  = "kube-system"
	SecretNamePrefix = "bootstrap-token-"
	SecretType       = api.SecretTypeBootstrapToken

	KeyTokenID     = "token-id"
	KeyTokenSecret = "token-secret"
	// KeyExpiration is an RFC 3339 time after which the token is no longer
	// valid and the tokencleaner deletes its Secret.
	KeyExpiration  = "expiration"
	KeyDescription = "description"
	// KeyUsageAuthentication "true" lets the token authenticate.
	KeyUsageAuthentication = "usage-bootstrap-authentication"
	// KeyUsageSigning "true" lets the bootstrapsigner sign cluster-info
	// with the token.
	KeyUsageSigning = "usage-bootstrap-signing"
	// KeyExtraGroups is a comma-separated list of groups the token's user
	// is in besides system:bootstrappers; each must start with
	// "system:bootstrappers:".
	KeyExtraGroups = "auth-extra-groups"
)

// The identity a bootstrap token authenticates as.
const (
	// UserPrefix + token-id is the user name.
	UserPrefix = "system:bootstrap:"
	// Group holds every bootstrap token's user.
	Group = "system:bootstrappers"
	// DefaultNodeGroup is the extra group kubeadm gives the tokens it
	// creates for joining nodes; its RBAC bindings let them ask for, and
	// have approved, a kubelet client certificate.
	DefaultNodeGroup = "system:bootstrappers:kubeadm:default-node-token"
)

// DefaultTTL is how long a token lives when none is given (kubeadm's 24 h).
const DefaultTTL = 24 * time.Hour

var (
	tokenPattern = regexp.MustCompile(`^([a-z0-9]{6})\.([a-z0-9]{16})$`)
	idPattern    = regexp.MustCompile(`^[a-z0-9]{6}$`)
)

// Token is a parsed bootstrap token.
type Token struct {
	ID     string
	Secret string
}

// String is the token as users pass it: "<id>.<secret>".
func (t Token) String() string { return t.ID + "." + t.Secret }

// Parse reads "<id>.<secret>"; anything else is an error that says the
// expected shape and never repeats the input (it is a credential).
func Parse(s string) (Token, error) {
	m := tokenPattern.FindStringSubmatch(s)
	if m == nil {
		return Token{}, fmt.Errorf("the bootstrap token does not match the pattern %q", tokenPattern.String())
	}
	return Token{ID: m[1], Secret: m[2]}, nil
}

// ValidID says whether s can be a token-id.
func ValidID(s string) bool { return idPattern.MatchString(s) }

// Generate returns a new random token.
func Generate() (Token, error) {
	id, err := randomString(6)
	if err != nil {
		return Token{}, err
	}
	secret, err := randomString(16)
	if err != nil {
		return Token{}, err
	}
	return Token{ID: id, Secret: secret}, nil
}

// randomString draws n characters uniformly from [a-z0-9].
func randomString(n int) (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	for range n {
		i, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			return "", fmt.Errorf("generate bootstrap token: %w", err)
		}
		b.WriteByte(alphabet[i.Int64()])
	}
	return b.String(), nil
}

// SecretName is the name of the Secret holding the token with this id.
func SecretName(id string) string { return SecretNamePrefix + id }

// Options describe a token to create.
type Options struct {
	// TTL is how long the token lives from now; 0 means forever.
	TTL         time.Duration
	Description string
	// Usages are "authentication" and/or "signing".
	Usages []string
	// Groups are the extra groups (KeyExtraGroups).
	Groups []string
}

// NewSecret builds the Secret for token, as `kubeadm token create` writes it.
func NewSecret(token Token, opts Options, now time.Time) *api.Secret {
	data := map[string][]byte{
		KeyTokenID:     []byte(token.ID),
		KeyTokenSecret: []byte(token.Secret),
	}
	if opts.TTL > 0 {
		data[KeyExpiration] = []byte(now.Add(opts.TTL).UTC().Format(time.RFC3339))
	}
	if opts.Description != "" {
		data[KeyDescription] = []byte(opts.Description)
	}
	for _, u := range opts.Usages {
		data["usage-bootstrap-"+u] = []byte("true")
	}
	if len(opts.Groups) > 0 {
		data[KeyExtraGroups] = []byte(strings.Join(opts.Groups, ","))
	}
	return &api.Secret{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: api.ObjectMeta{Name: SecretName(token.ID), Namespace: SecretNamespace},
		Type:       SecretType,
		Data:       data,
	}
}

// Expiration returns the Secret's expiration time; ok is false when it has
// none. A value that does not parse counts as already expired (upstream
// treats it so: a token whose lifetime cannot be read must not be used).
func Expiration(secret *api.Secret) (t time.Time, ok bool) {
	raw, ok := secret.Data[KeyExpiration]
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, string(raw))
	if err != nil {
		return time.Time{}, true
	}
	return t, true
}

// Expired says whether the Secret's token is past its expiration at now.
func Expired(secret *api.Secret, now time.Time) bool {
	t, ok := Expiration(secret)
	return ok && !now.Before(t)
}

// Usable reports whether secret is a well-formed, live bootstrap token
// Secret allowing usage ("authentication" or "signing") at now, and if so
// its token. It checks the type, the name against token-id, and the
// expiration, as upstream's authenticator and bootstrapsigner both do.
func Usable(secret *api.Secret, usage string, now time.Time) (Token, bool) {
	if secret.Type != SecretType || secret.DeletionTimestamp != nil {
		return Token{}, false
	}
	token := Token{ID: string(secret.Data[KeyTokenID]), Secret: string(secret.Data[KeyTokenSecret])}
	if _, err := Parse(token.String()); err != nil || secret.Name != SecretName(token.ID) {
		return Token{}, false
	}
	if Expired(secret, now) || string(secret.Data["usage-bootstrap-"+usage]) != "true" {
		return Token{}, false
	}
	return token, true
}

// SecretMatches compares a presented token-secret with the stored one in
// constant time.
func SecretMatches(stored Token, presented string) bool {
	return subtle.ConstantTimeCompare([]byte(stored.Secret), []byte(presented)) == 1
}

// groupPattern is what an extra group must match, upstream's
// BootstrapGroupPattern: system:bootstrappers: and a lower-case suffix
// that ends in a letter or digit.
var groupPattern = regexp.MustCompile(`\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\z`)

// ValidateGroup checks an extra group of a bootstrap token, as upstream's
// ValidateBootstrapGroupName: only groups under system:bootstrappers:, so
// that a token cannot claim system:masters.
func ValidateGroup(name string) error {
	if groupPattern.MatchString(name) {
		return nil
	}
	return fmt.Errorf("bootstrap group %q is invalid (must match %s)", name, groupPattern)
}

// ExtraGroups returns the Secret's extra groups; any that ValidateGroup
// refuses makes it an error (upstream's GetGroups refuses the token then).
// The list is split at commas and nothing else: " system:bootstrappers:x"
// is refused, as upstream refuses it.
func ExtraGroups(secret *api.Secret) ([]string, error) {
	raw := string(secret.Data[KeyExtraGroups])
	if raw == "" {
		return nil, nil
	}
	var groups []string
	for _, g := range strings.Split(raw, ",") {
		if err := ValidateGroup(g); err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	return groups, nil
}
