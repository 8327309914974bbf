package tokencleaner_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/bootstraptoken"
	"kplane/pkg/client"
	"kplane/pkg/controllers/tokencleaner"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

// Against a real apiserver: an expired token's Secret is deleted; a live
// one and one without expiration stay. A second expired token, whose name
// sorts after all the others, is the proof that the controller has looked
// at the live ones: the informer lists in name order and the one worker
// takes keys first in, first out, so once it is gone the live ones have
// been synced too.
func TestExpiredTokensAreDeleted(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	now := time.Now()
	create := func(id string, ttl time.Duration, created time.Time) {
		tok := bootstraptoken.Token{ID: id, Secret: "0123456789abcdef"}
		s := bootstraptoken.NewSecret(tok, bootstraptoken.Options{TTL: ttl, Usages: []string{"authentication"}}, created)
		if _, err := c.Secrets(s.Namespace).Create(ctx, s, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create("expird", time.Minute, now.Add(-time.Hour))
	create("livetk", time.Hour, now)
	create("foreve", 0, now)
	create("zzzexp", time.Minute, now.Add(-time.Hour))
	controllertest.RunController(t, c, "", 1, func(f *informer.SharedInformerFactory, rec events.EventRecorder, l *slog.Logger) (*tokencleaner.Controller, error) {
		return tokencleaner.New(c, f, rec, tokencleaner.Options{Logger: l})
	})
	for _, id := range []string{"expird", "zzzexp"} {
		framework.Eventually(t, 10*time.Second, func() (bool, string) {
			_, err := c.Secrets("kube-system").Get(ctx, bootstraptoken.SecretName(id), client.GetOptions{})
			return apierrors.IsNotFound(err), "expired token secret " + id + " still there"
		})
	}
	for _, id := range []string{"livetk", "foreve"} {
		if _, err := c.Secrets("kube-system").Get(ctx, bootstraptoken.SecretName(id), client.GetOptions{}); err != nil {
			t.Errorf("token %s: %v", id, err)
		}
	}
}
