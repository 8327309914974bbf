package ui

import (
	"encoding/json"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

func crd(t *testing.T, text string) *api.CustomObject {
	t.Helper()
	u := &api.CustomObject{}
	if err := json.Unmarshal([]byte(text), u); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestResourceOfCRD(t *testing.T) {
	tests := []struct {
		name   string
		crd    string
		want   client.Resource
		wantOK bool
	}{
		{
			name: "the storage version, not the first served one",
			crd: `{"kind":"CustomResourceDefinition","metadata":{"name":"crontabs.stable.example.com"},"spec":{"group":"stable.example.com","scope":"Namespaced",
				"names":{"plural":"crontabs","kind":"CronTab"},
				"versions":[{"name":"v1beta1","served":true,"storage":false},{"name":"v1","served":true,"storage":true}]}}`,
			want:   client.Resource{Group: "stable.example.com", Version: "v1", Resource: "crontabs", Kind: "CronTab", Namespaced: true},
			wantOK: true,
		},
		{
			name: "cluster-scoped, first served version when none stores",
			crd: `{"spec":{"group":"example.com","scope":"Cluster","names":{"plural":"widgets","kind":"Widget"},
				"versions":[{"name":"v2","served":true}]}}`,
			want:   client.Resource{Group: "example.com", Version: "v2", Resource: "widgets", Kind: "Widget"},
			wantOK: true,
		},
		{name: "no versions", crd: `{"spec":{"group":"example.com","names":{"plural":"widgets","kind":"Widget"}}}`},
		{name: "no names", crd: `{"spec":{"group":"example.com","versions":[{"name":"v1","storage":true}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := resourceOfCRD(crd(t, tt.crd))
			if ok != tt.wantOK || got != tt.want {
				t.Errorf("resourceOfCRD = %+v, %v; want %+v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
