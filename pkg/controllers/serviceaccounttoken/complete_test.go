package serviceaccounttoken

import (
	"crypto/rand"
	"crypto/rsa"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/serviceaccount"
)

// TestComplete: a new Secret gets a token, the CA, the namespace and the
// account's uid; completing it again changes nothing; a Secret whose token
// is set keeps it while a wrong CA is put right.
func TestComplete(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	issuer, err := serviceaccount.NewIssuer(serviceaccount.LegacyIssuer, key)
	if err != nil {
		t.Fatal(err)
	}
	c := &Controller{issuer: issuer, rootCA: []byte("CA")}
	sa := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "robot", UID: "sa-uid"}}
	secret := &api.Secret{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "robot-token",
		Annotations: map[string]string{serviceaccount.ServiceAccountNameAnnotation: "robot"}}, Type: serviceaccount.SecretTypeServiceAccountToken}

	filled, changed, err := c.complete(secret, sa)
	if err != nil || !changed {
		t.Fatalf("complete: changed=%v err=%v", changed, err)
	}
	if len(filled.Data["token"]) == 0 || string(filled.Data["ca.crt"]) != "CA" || string(filled.Data["namespace"]) != "ns" ||
		filled.Annotations[serviceaccount.ServiceAccountUIDAnnotation] != "sa-uid" {
		t.Fatalf("filled = %+v", filled)
	}
	if len(secret.Data) != 0 || len(secret.Annotations) != 1 {
		t.Error("complete changed the cached Secret")
	}
	if _, changed, _ := c.complete(filled, sa); changed {
		t.Error("completing a complete Secret changed it")
	}
	filled.Data["ca.crt"] = []byte("old CA")
	again, changed, _ := c.complete(filled, sa)
	if !changed || string(again.Data["ca.crt"]) != "CA" || string(again.Data["token"]) != string(filled.Data["token"]) {
		t.Errorf("repair: changed=%v, ca %q, token kept %v", changed, again.Data["ca.crt"], string(again.Data["token"]) == string(filled.Data["token"]))
	}
}
