package bootstraptoken

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{"abcdef.0123456789abcdef", true},
		{"ABCDEF.0123456789abcdef", false},
		{"abcde.0123456789abcdef", false},
		{"abcdef.0123456789abcde", false},
		{"abcdef0123456789abcdef", false},
		{"", false},
	} {
		tok, err := Parse(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("Parse(%q) err = %v, want ok %v", tt.in, err, tt.ok)
		}
		if err != nil && tt.in != "" && strings.Contains(err.Error(), tt.in) {
			t.Errorf("Parse error repeats the credential: %v", err)
		}
		if tt.ok && tok.String() != tt.in {
			t.Errorf("round trip %q -> %q", tt.in, tok)
		}
	}
	g, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(g.String()); err != nil {
		t.Errorf("generated token %q does not parse: %v", g, err)
	}
}

func TestUsableAndExpiry(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tok := Token{ID: "abcdef", Secret: "0123456789abcdef"}
	s := NewSecret(tok, Options{TTL: time.Hour, Usages: []string{"authentication"}, Groups: []string{DefaultNodeGroup}}, now)
	if s.Name != "bootstrap-token-abcdef" || s.Namespace != "kube-system" || s.Type != api.SecretTypeBootstrapToken {
		t.Fatalf("secret %s/%s type %s", s.Namespace, s.Name, s.Type)
	}
	if got, ok := Usable(s, "authentication", now); !ok || got != tok {
		t.Errorf("Usable for authentication = %v %v", got, ok)
	}
	if _, ok := Usable(s, "signing", now); ok {
		t.Error("usable for signing without usage-bootstrap-signing")
	}
	if _, ok := Usable(s, "authentication", now.Add(time.Hour)); ok {
		t.Error("usable at its expiration")
	}
	renamed := api.DeepCopy(s)
	renamed.Name = "bootstrap-token-zzzzzz"
	if _, ok := Usable(renamed, "authentication", now); ok {
		t.Error("usable under a name that does not match token-id")
	}
	garbled := api.DeepCopy(s)
	garbled.Data[KeyExpiration] = []byte("tomorrow")
	if !Expired(garbled, now) {
		t.Error("an unparseable expiration must count as expired")
	}
	forever := NewSecret(tok, Options{}, now)
	if Expired(forever, now.Add(1000*time.Hour)) {
		t.Error("a token without ttl expired")
	}
	if g, err := ExtraGroups(s); err != nil || len(g) != 1 || g[0] != DefaultNodeGroup {
		t.Errorf("ExtraGroups = %v, %v", g, err)
	}
	bad := api.DeepCopy(s)
	bad.Data[KeyExtraGroups] = []byte("system:masters")
	if _, err := ExtraGroups(bad); err == nil {
		t.Error("a token may not claim system:masters")
	}
	bad.Data[KeyExtraGroups] = []byte(DefaultNodeGroup + ", system:bootstrappers:other")
	if _, err := ExtraGroups(bad); err == nil {
		t.Error("a group with a leading space was accepted (upstream does not trim)")
	}
}

// ValidateGroup is upstream's ValidateBootstrapGroupName.
func TestValidateGroup(t *testing.T) {
	for _, g := range []string{DefaultNodeGroup, "system:bootstrappers:a", "system:bootstrappers:x:y-1"} {
		if err := ValidateGroup(g); err != nil {
			t.Errorf("ValidateGroup(%q) = %v", g, err)
		}
	}
	for _, g := range []string{"system:masters", "system:bootstrappers", "system:bootstrappers:", "system:bootstrappers:Upper",
		"system:bootstrappers:ends-", "system:bootstrappers:a b", " system:bootstrappers:a", "system:bootstrappers:a\n",
		"system:bootstrappers:" + strings.Repeat("a", 257)} {
		if err := ValidateGroup(g); err == nil {
			t.Errorf("ValidateGroup(%q) accepted it", g)
		}
	}
}

func TestDetachedJWS(t *testing.T) {
	tok := Token{ID: "abcdef", Secret: "0123456789abcdef"}
	jws, err := DetachedJWS("content", tok)
	if err != nil {
		t.Fatal(err)
	}
	// Upstream's header for this token is {"alg":"HS256","kid":"abcdef"}.
	if !strings.HasPrefix(jws, "eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9..") {
		t.Errorf("jws = %s", jws)
	}
	if err := VerifyDetachedJWS(jws, "content", tok); err != nil {
		t.Errorf("verify: %v", err)
	}
	for name, check := range map[string]func() error{
		"changed content": func() error { return VerifyDetachedJWS(jws, "content!", tok) },
		"wrong secret": func() error {
			return VerifyDetachedJWS(jws, "content", Token{ID: "abcdef", Secret: "xxxxxxxxxxxxxxxx"})
		},
		"wrong id":     func() error { return VerifyDetachedJWS(jws, "content", Token{ID: "zzzzzz", Secret: tok.Secret}) },
		"not detached": func() error { return VerifyDetachedJWS("a.b.c", "content", tok) },
	} {
		if check() == nil {
			t.Errorf("%s: verified", name)
		}
	}
}

func TestCAPin(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubernetes"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	want := "sha256:" + hex.EncodeToString(sum[:])
	if got := CAHash(cert); got != want {
		t.Fatalf("CAHash = %s, want %s", got, want)
	}
	pin, err := ParsePin(strings.ToUpper(want[:7]) + want[7:])
	if err != nil || pin != want {
		t.Fatalf("ParsePin = %s, %v", pin, err)
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if hashes, err := CAHashes(append(caPEM, caPEM...)); err != nil || len(hashes) != 2 || hashes[1] != want {
		t.Errorf("CAHashes of two certificates = %v, %v", hashes, err)
	}
	if _, err := CAHashes([]byte("no pem")); err == nil {
		t.Error("CAHashes of no certificate succeeded")
	}
	if err := VerifyPins(caPEM, []string{pin}); err != nil {
		t.Errorf("matching pin refused: %v", err)
	}
	other := "sha256:" + strings.Repeat("0", 64)
	if err := VerifyPins(caPEM, []string{other}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("wrong pin: %v (should name the real hash)", err)
	}
	for _, bad := range []string{"md5:00", "sha256:xyz", "sha256:" + strings.Repeat("0", 62)} {
		if _, err := ParsePin(bad); err == nil {
			t.Errorf("ParsePin(%q) accepted", bad)
		}
	}
}
