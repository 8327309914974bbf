package join_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/bootstraptoken"
	"kplane/pkg/client"
	"kplane/pkg/controllers/bootstrapsigner"
	"kplane/pkg/controllers/csrapproving"
	"kplane/pkg/controllers/csrsigning"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/join"
	"kplane/pkg/pki"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

// joinCluster is an in-process apiserver with the four joining controllers
// running, cluster-info published and one node token created.
type joinCluster struct {
	a     *framework.APIServer
	admin *client.Client
	token bootstraptoken.Token
	pin   string
}

func startJoinCluster(t *testing.T) joinCluster {
	t.Helper()
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "join-test" })
	signer, err := pki.LoadSigner(filepath.Join(a.Dir, "pki", pki.CACertFileName), filepath.Join(a.Dir, "pki", pki.CAKeyFileName))
	if err != nil {
		t.Fatal(err)
	}
	controllertest.RunController(t, c, "", 1, func(f *informer.SharedInformerFactory, rec events.EventRecorder, l *slog.Logger) (*bootstrapsigner.Controller, error) {
		return bootstrapsigner.New(c, f, rec, bootstrapsigner.Options{Logger: l})
	})
	controllertest.RunController(t, c, "", 1, func(f *informer.SharedInformerFactory, rec events.EventRecorder, l *slog.Logger) (*csrapproving.Controller, error) {
		return csrapproving.New(c, f, rec, csrapproving.Options{Logger: l})
	})
	controllertest.RunController(t, c, "", 1, func(f *informer.SharedInformerFactory, rec events.EventRecorder, l *slog.Logger) (*csrsigning.Controller, error) {
		return csrsigning.New(c, f, rec, csrsigning.Options{Logger: l, Signer: signer})
	})
	ctx := context.Background()
	info, err := bootstraptoken.NewClusterInfo(a.URL(), a.CACertPEM())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ConfigMaps(info.Namespace).Create(ctx, info, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	token, err := bootstraptoken.Generate()
	if err != nil {
		t.Fatal(err)
	}
	secret := bootstraptoken.NewSecret(token, bootstraptoken.Options{TTL: time.Hour, Usages: []string{"signing", "authentication"},
		Groups: []string{bootstraptoken.DefaultNodeGroup}}, time.Now())
	if _, err := c.Secrets(secret.Namespace).Create(ctx, secret, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(a.CACertPEM())
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return joinCluster{a: a, admin: c, token: token, pin: bootstraptoken.CAHash(ca)}
}

func discover(t *testing.T, d join.Discovery) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	d.Retry = 50 * time.Millisecond
	return d.Discover(ctx)
}

// The whole join against a real apiserver: discovery with the right token
// and pin returns the cluster CA; the TLS bootstrap's CSR is recorded as
// the bootstrap user's, approved and issued; the node then acts as
// system:node:<name>, which NodeRestriction holds to its own Node.
func TestJoinDiscoversBootstrapsAndActsAsTheNode(t *testing.T) {
	jc := startJoinCluster(t)
	ctx := context.Background()
	caPEM, err := discover(t, join.Discovery{Server: jc.a.URL(), Token: jc.token, CAPins: []string{jc.pin}})
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	if string(caPEM) != string(jc.a.CACertPEM()) {
		t.Fatalf("discovered CA differs from the cluster's")
	}

	bctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	creds, err := join.TLSBootstrap{Server: jc.a.URL(), CAPEM: caPEM, Token: jc.token, NodeName: "worker-1", Poll: 50 * time.Millisecond}.Request(bctx)
	if err != nil {
		t.Fatalf("TLS bootstrap: %v", err)
	}
	csr, err := jc.admin.CertificateSigningRequests().Get(ctx, creds.CSRName, client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := bootstraptoken.UserPrefix + jc.token.ID; csr.Spec.Username != want {
		t.Errorf("csr requester = %q, want %q (set by the server)", csr.Spec.Username, want)
	}
	if cond, ok := api.CSRCondition(csr, api.CertificateApproved); !ok || cond.Reason != "AutoApproved" {
		t.Errorf("csr conditions = %+v, want Approved by AutoApproved", csr.Status.Conditions)
	}
	block, _ := pem.Decode(creds.CertPEM)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if cert.Subject.CommonName != "system:node:worker-1" || len(cert.ExtKeyUsage) != 1 || cert.ExtKeyUsage[0] != x509.ExtKeyUsageClientAuth {
		t.Errorf("certificate subject %v usages %v", cert.Subject, cert.ExtKeyUsage)
	}

	path := filepath.Join(t.TempDir(), "kubelet.kubeconfig")
	if err := join.KubeletKubeconfig(jc.a.URL(), caPEM, "worker-1", creds).WriteFile(path); err != nil {
		t.Fatal(err)
	}
	node := framework.NewClient(t, path, nil)
	if _, err := node.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "worker-1"}}, client.CreateOptions{}); err != nil {
		t.Fatalf("the node creates its own Node: %v", err)
	}
	if _, err := node.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "worker-2"}}, client.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the node creates another node's Node: err %v, want Forbidden", err)
	}
}

func TestDiscoveryRefusesAWrongPin(t *testing.T) {
	jc := startJoinCluster(t)
	wrong := "sha256:" + strings.Repeat("ab", 32)
	_, err := discover(t, join.Discovery{Server: jc.a.URL(), Token: jc.token, CAPins: []string{wrong}})
	if err == nil || !strings.Contains(err.Error(), jc.pin) || !strings.Contains(err.Error(), "matches none") {
		t.Fatalf("err = %v, want a refusal naming the CA's real hash %s", err, jc.pin)
	}
}

func TestDiscoveryRefusesAWrongTokenSecret(t *testing.T) {
	jc := startJoinCluster(t)
	forged := bootstraptoken.Token{ID: jc.token.ID, Secret: strings.Repeat("x", 16)}
	_, err := discover(t, join.Discovery{Server: jc.a.URL(), Token: forged, CAPins: []string{jc.pin}})
	if err == nil || !strings.Contains(err.Error(), "not signed by this token") {
		t.Fatalf("err = %v, want the signature refused", err)
	}
	// The same wrong token does not authenticate either.
	resp := jc.a.DoWithToken(t, forged.String(), http.MethodGet, "/api/v1/namespaces/default/configmaps", nil)
	if resp.Code != http.StatusUnauthorized {
		t.Errorf("wrong token secret: %d %s, want 401", resp.Code, resp.Body)
	}
}

func TestDiscoveryNeedsAPinOrTheUnsafeFlag(t *testing.T) {
	_, err := join.Discovery{Server: "https://127.0.0.1:1", Token: bootstraptoken.Token{ID: "abcdef", Secret: "0123456789abcdef"}}.Discover(context.Background())
	if err == nil || !strings.Contains(err.Error(), "--discovery-token-ca-cert-hash") {
		t.Fatalf("err = %v", err)
	}
	_, err = join.Discovery{Server: "https://127.0.0.1:1", CAPins: []string{"md5:00"}}.Discover(context.Background())
	if err == nil || !strings.Contains(err.Error(), "sha256:") {
		t.Fatalf("err = %v", err)
	}
}

// Anonymous requests reach cluster-info (RBAC allows it) and nothing else.
func TestAnonymousReadsOnlyClusterInfo(t *testing.T) {
	jc := startJoinCluster(t)
	for path, want := range map[string]int{
		"/api/v1/namespaces/kube-public/configmaps/cluster-info": http.StatusOK,
		"/api/v1/namespaces/kube-public/configmaps":              http.StatusUnauthorized,
		"/api/v1/namespaces/kube-system/secrets":                 http.StatusUnauthorized,
	} {
		if resp := jc.a.DoWithToken(t, "", http.MethodGet, path, nil); resp.Code != want {
			t.Errorf("anonymous GET %s: %d %s, want %d", path, resp.Code, resp.Body, want)
		}
	}
}
