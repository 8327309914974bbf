package serviceaccount

import (
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/uuid"

	"kplane/pkg/auth"
)

// DefaultIssuer is the issuer kplane's apiserver signs bound tokens as
// unless --service-account-issuer says otherwise: the in-cluster name of
// the apiserver, as kubeadm configures it.
const DefaultIssuer = "https://kubernetes.default.svc.cluster.local"

// Lifetimes of bound tokens, upstream's numbers.
const (
	// MinExpirationSeconds is the shortest lifetime a TokenRequest may ask
	// for: ten minutes.
	MinExpirationSeconds int64 = 10 * 60
	// MaxExpirationSeconds is the longest: 2^32 seconds.
	MaxExpirationSeconds int64 = 1 << 32
	// DefaultExpirationSeconds is the lifetime when a request names none.
	DefaultExpirationSeconds int64 = 60 * 60
	// WarnOnlyExpirationSeconds is what the ServiceAccount admission asks
	// for pods' projected tokens (an hour and seven seconds). Its oddness
	// lets the apiserver recognise such a request and issue a token valid
	// for ExtendedExpirationSeconds instead, with a "warnafter" time at
	// the requested expiry: old clients that read their token once keep
	// working, and the apiserver can tell (and log) they use a stale one.
	WarnOnlyExpirationSeconds int64 = 3607
	// ExtendedExpirationSeconds is the lifetime of such extended tokens: a year.
	ExtendedExpirationSeconds int64 = 365 * 24 * 60 * 60
)

// privateClaims is the "kubernetes.io" claim of a bound token: which
// ServiceAccount it is for and which object it is bound to.
type privateClaims struct {
	Kubernetes kubernetesClaim `json:"kubernetes.io,omitempty"`
}

type kubernetesClaim struct {
	Namespace      string           `json:"namespace,omitempty"`
	ServiceAccount objectRef        `json:"serviceaccount,omitempty"`
	Pod            *objectRef       `json:"pod,omitempty"`
	Secret         *objectRef       `json:"secret,omitempty"`
	Node           *objectRef       `json:"node,omitempty"`
	WarnAfter      *jwt.NumericDate `json:"warnafter,omitempty"`
}

type objectRef struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// Binding is what a bound token is tied to, besides its ServiceAccount: at
// most one of Pod, Secret and Node as the bound object, plus, for a pod
// that is scheduled, the pod's node (informational: upstream adds it so
// that a node-scoped authorizer knows where the token's pod runs).
type Binding struct {
	Pod, Secret, Node *ObjectRef
}

// ObjectRef names one object by name and uid.
type ObjectRef struct {
	Name string
	UID  string
}

func (r *ObjectRef) claim() *objectRef {
	if r == nil {
		return nil
	}
	return &objectRef{Name: r.Name, UID: r.UID}
}

// TokenSpec is everything a bound token states: whose it is, for whom, how
// long, and what it is bound to.
type TokenSpec struct {
	Namespace          string
	ServiceAccountName string
	ServiceAccountUID  string
	Audiences          []string
	// IssuedAt is when the token starts to be valid.
	IssuedAt time.Time
	// Expiration is the token's lifetime from IssuedAt.
	Expiration time.Duration
	// WarnAfter, when not zero, marks an extended token: the lifetime the
	// client asked for ends here (see WarnOnlyExpirationSeconds).
	WarnAfter time.Time
	Binding   Binding
}

// registeredClaims are the registered JWT claims a bound token carries.
// They mirror jwt.Claims (which reads them back) except that "aud" is
// always a list: go-jose would write a single audience as a bare string,
// while the tokens of a real cluster show a list.
type registeredClaims struct {
	Issuer    string           `json:"iss,omitempty"`
	Subject   string           `json:"sub,omitempty"`
	Audience  []string         `json:"aud,omitempty"`
	Expiry    *jwt.NumericDate `json:"exp,omitempty"`
	NotBefore *jwt.NumericDate `json:"nbf,omitempty"`
	IssuedAt  *jwt.NumericDate `json:"iat,omitempty"`
	ID        string           `json:"jti,omitempty"`
}

// claims turns a spec into the registered claims and the private
// "kubernetes.io" claim upstream's bound tokens carry.
func (s TokenSpec) claims(issuer string) (*registeredClaims, *privateClaims) {
	public := &registeredClaims{
		Issuer:    issuer,
		Subject:   auth.ServiceAccountUsername(s.Namespace, s.ServiceAccountName),
		Audience:  s.Audiences,
		IssuedAt:  jwt.NewNumericDate(s.IssuedAt),
		NotBefore: jwt.NewNumericDate(s.IssuedAt),
		Expiry:    jwt.NewNumericDate(s.IssuedAt.Add(s.Expiration)),
		ID:        uuid.NewString(),
	}
	private := &privateClaims{Kubernetes: kubernetesClaim{
		Namespace:      s.Namespace,
		ServiceAccount: objectRef{Name: s.ServiceAccountName, UID: s.ServiceAccountUID},
		Pod:            s.Binding.Pod.claim(),
		Secret:         s.Binding.Secret.claim(),
		Node:           s.Binding.Node.claim(),
	}}
	if !s.WarnAfter.IsZero() {
		private.Kubernetes.WarnAfter = jwt.NewNumericDate(s.WarnAfter)
	}
	return public, private
}
