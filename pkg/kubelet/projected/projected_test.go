package projected

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"testing"

	"kplane/pkg/api"
)

type fakeObjects struct {
	configMaps map[string]*api.ConfigMap
	secrets    map[string]*api.Secret
}

func (f fakeObjects) GetConfigMap(_ context.Context, namespace, name string) (*api.ConfigMap, error) {
	return f.configMaps[namespace+"/"+name], nil
}

func (f fakeObjects) GetSecret(_ context.Context, namespace, name string) (*api.Secret, error) {
	return f.secrets[namespace+"/"+name], nil
}

// fakeTokens issues "token-for-<pod>-<audience>-<seconds>".
type fakeTokens struct{ err error }

func (f fakeTokens) PodToken(_ context.Context, pod *api.Pod, audience string, expirationSeconds int64) (string, error) {
	if f.err != nil {
		return "", f.err
	}
	return "token-for-" + pod.Name + "-" + audience + "-" + strconv.FormatInt(expirationSeconds, 10), nil
}

// kubeAPIAccess is the volume the ServiceAccount admission plugin adds.
func kubeAPIAccess() *api.ProjectedVolumeSource {
	expiration := int64(3607)
	return &api.ProjectedVolumeSource{Sources: []api.VolumeProjection{
		{ServiceAccountToken: &api.ServiceAccountTokenProjection{ExpirationSeconds: &expiration, Path: "token"}},
		{ConfigMap: &api.ConfigMapProjection{LocalObjectReference: api.LocalObjectReference{Name: "kube-root-ca.crt"},
			Items: []api.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
		{DownwardAPI: &api.DownwardAPIProjection{Items: []api.DownwardAPIVolumeFile{{
			Path: "namespace", FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
	}}
}

func TestKubeAPIAccessFiles(t *testing.T) {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "team", Name: "web", UID: "u1"}}
	objects := fakeObjects{configMaps: map[string]*api.ConfigMap{
		"team/kube-root-ca.crt": {Data: map[string]string{"ca.crt": "-----BEGIN CERTIFICATE-----\n"}},
	}}
	files, err := Files(context.Background(), pod, kubeAPIAccess(), objects, fakeTokens{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"token": "token-for-web--3607", "ca.crt": "-----BEGIN CERTIFICATE-----\n", "namespace": "team"}
	if !maps.Equal(files, want) {
		t.Errorf("files = %q, want %q", files, want)
	}

	// Without a token source the token is left out; a failing one fails the volume.
	files, err = Files(context.Background(), pod, kubeAPIAccess(), objects, nil)
	if _, ok := files["token"]; err != nil || ok || files["namespace"] != "team" {
		t.Errorf("without tokens: %q, %v", files, err)
	}
	if _, err := Files(context.Background(), pod, kubeAPIAccess(), objects, fakeTokens{err: errors.New("forbidden")}); err == nil {
		t.Error("a token that could not be issued gave files")
	}
	// The CA ConfigMap is not optional.
	if _, err := Files(context.Background(), pod, kubeAPIAccess(), fakeObjects{}, fakeTokens{}); err == nil {
		t.Error("a missing kube-root-ca.crt gave files")
	}
}

func TestProjectedSources(t *testing.T) {
	yes := true
	audience := "vault"
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p", UID: "u2",
		Labels: map[string]string{"tier": "web", "app": "shop"}}}
	src := &api.ProjectedVolumeSource{Sources: []api.VolumeProjection{
		{ServiceAccountToken: &api.ServiceAccountTokenProjection{Audience: audience, Path: "vault-token"}},
		{Secret: &api.SecretProjection{LocalObjectReference: api.LocalObjectReference{Name: "creds"}}},
		{Secret: &api.SecretProjection{LocalObjectReference: api.LocalObjectReference{Name: "absent"}, Optional: &yes}},
		{DownwardAPI: &api.DownwardAPIProjection{Items: []api.DownwardAPIVolumeFile{
			{Path: "labels", FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.labels"}},
			{Path: "tier", FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.labels['tier']"}},
			{Path: "uid", FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.uid"}},
		}}},
	}}
	objects := fakeObjects{secrets: map[string]*api.Secret{"ns/creds": {Data: map[string][]byte{"user": []byte("admin")}}}}
	files, err := Files(context.Background(), pod, src, objects, fakeTokens{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"vault-token": "token-for-p-vault-3600", "user": "admin",
		"labels": "app=\"shop\"\ntier=\"web\"", "tier": "web", "uid": "u2"}
	if !maps.Equal(files, want) {
		t.Errorf("files = %q, want %q", files, want)
	}
}
