package apiserver

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

func TestDefaultStorageClass(t *testing.T) {
	at := func(minutes int) api.Time { return api.NewTime(time.Date(2026, 1, 1, 0, minutes, 0, 0, time.UTC)) }
	class := func(name string, created int, annotations map[string]string) *api.StorageClass {
		return &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: name, CreationTimestamp: at(created), Annotations: annotations}}
	}
	isDefault := map[string]string{api.AnnDefaultStorageClass: "true"}
	betaDefault := map[string]string{"storageclass.beta.kubernetes.io/is-default-class": "true"}
	notDefault := map[string]string{api.AnnDefaultStorageClass: "false"}
	tests := []struct {
		name    string
		classes []*api.StorageClass
		want    string
	}{
		{"no classes", nil, ""},
		{"no class marked", []*api.StorageClass{class("fast", 1, nil), class("slow", 2, notDefault)}, ""},
		{"one default", []*api.StorageClass{class("fast", 1, nil), class("standard", 0, isDefault)}, "standard"},
		{"beta annotation", []*api.StorageClass{class("old", 0, betaDefault)}, "old"},
		{"newest default wins", []*api.StorageClass{class("standard", 0, isDefault), class("newer", 5, isDefault)}, "newer"},
		{"same age: first by name", []*api.StorageClass{class("b", 3, isDefault), class("a", 3, isDefault)}, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if def := defaultStorageClass(tt.classes); def != nil {
				got = def.Name
			}
			if got != tt.want {
				t.Errorf("default class = %q, want %q", got, tt.want)
			}
		})
	}
}
