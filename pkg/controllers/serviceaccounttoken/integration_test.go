package serviceaccounttoken_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/serviceaccounttoken"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/serviceaccount"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 10 * time.Second

// Against a real apiserver, with its signing key: a hand-made token Secret
// is filled in and its token authenticates as the ServiceAccount until the
// Secret is deleted; Secrets of a missing or deleted ServiceAccount go.
func TestTokenSecrets(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	key, err := serviceaccount.LoadPrivateKey(filepath.Join(a.Dir, "pki", serviceaccount.PrivateKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	issuer, err := serviceaccount.NewIssuer(serviceaccount.LegacyIssuer, key)
	if err != nil {
		t.Fatal(err)
	}
	controllertest.RunController(t, c, "", 1, func(f *informer.SharedInformerFactory, _ events.EventRecorder, logger *slog.Logger) (*serviceaccounttoken.Controller, error) {
		return serviceaccounttoken.New(c, f, serviceaccounttoken.Options{Logger: logger, Issuer: issuer, RootCA: a.CACertPEM()})
	})
	ctx := context.Background()
	sa, err := c.ServiceAccounts("default").Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "build-robot"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tokenSecret := func(name, account string) {
		t.Helper()
		_, err := c.Secrets("default").Create(ctx, &api.Secret{
			ObjectMeta: api.ObjectMeta{Name: name, Annotations: map[string]string{serviceaccount.ServiceAccountNameAnnotation: account}},
			Type:       serviceaccount.SecretTypeServiceAccountToken,
		}, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}

	tokenSecret("build-robot-token", "build-robot")
	var secret *api.Secret
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		got, err := c.Secrets("default").Get(ctx, "build-robot-token", client.GetOptions{})
		if err != nil || len(got.Data[serviceaccount.SecretTokenKey]) == 0 {
			return false, fmt.Sprintf("secret %+v, err %v", got, err)
		}
		secret = got
		return true, ""
	})
	if string(secret.Data[serviceaccount.SecretCACertKey]) != string(a.CACertPEM()) || string(secret.Data[serviceaccount.SecretNamespaceKey]) != "default" ||
		secret.Annotations[serviceaccount.ServiceAccountUIDAnnotation] != sa.UID {
		t.Errorf("secret data keys / annotations: %v %v", secret.Data, secret.Annotations)
	}
	token := string(secret.Data[serviceaccount.SecretTokenKey])
	result, ok, err := a.ServiceAccountTokens().AuthenticateToken(ctx, token, nil)
	user := result.User
	if !ok || user.Name != "system:serviceaccount:default:build-robot" || user.UID != sa.UID {
		t.Fatalf("legacy token authenticates as %+v (%v, %v)", user, ok, err)
	}

	// Deleting the Secret revokes the token.
	if err := c.Secrets("default").Delete(ctx, "build-robot-token", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		_, ok, _ := a.ServiceAccountTokens().AuthenticateToken(ctx, token, nil)
		return !ok, "token still authenticates after its Secret was deleted"
	})

	// A Secret for an account that does not exist is deleted; so are an
	// account's Secrets when the account is.
	tokenSecret("ghost-token", "ghost")
	tokenSecret("second-token", "build-robot")
	waitGone(t, c, "ghost-token")
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		got, err := c.Secrets("default").Get(ctx, "second-token", client.GetOptions{})
		return err == nil && len(got.Data[serviceaccount.SecretTokenKey]) > 0, fmt.Sprintf("second-token: %v", err)
	})
	if err := c.ServiceAccounts("default").Delete(ctx, "build-robot", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, c, "second-token")
}

func waitGone(t *testing.T, c *client.Client, name string) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		_, err := c.Secrets("default").Get(context.Background(), name, client.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprintf("secret %s still there (err %v)", name, err)
	})
}
