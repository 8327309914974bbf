package apiserver

import (
	"slices"
	"testing"

	"kplane/pkg/api"
)

// TestAcceptNames: upstream's naming rules. A free name is accepted; a
// name another CRD of the group holds is not, the one accepted before is
// kept, and NamesAccepted names the (last) conflict; a name the CRD
// already holds stays its own.
func TestAcceptNames(t *testing.T) {
	requested := api.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList",
		ShortNames: []string{"ct"}, Categories: []string{"all"}}
	cases := []struct {
		name          string
		accepted      api.CustomResourceDefinitionNames
		usedResources []string
		usedKinds     []string
		wantNames     api.CustomResourceDefinitionNames
		wantReason    string
		wantMessage   string
	}{
		{name: "all free", wantNames: requested, wantReason: "NoConflicts", wantMessage: "no conflicts found"},
		{name: "plural taken", usedResources: []string{"crontabs"},
			wantNames:  api.CustomResourceDefinitionNames{Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList", ShortNames: []string{"ct"}, Categories: []string{"all"}},
			wantReason: "PluralConflict", wantMessage: `"crontabs" is already in use`},
		{name: "short name taken", usedResources: []string{"ct"},
			wantNames:  api.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList", Categories: []string{"all"}},
			wantReason: "ShortNamesConflict", wantMessage: `"ct" is already in use`},
		{name: "kind taken, then listKind", usedKinds: []string{"CronTab", "CronTabList"},
			wantNames:  api.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", ShortNames: []string{"ct"}, Categories: []string{"all"}},
			wantReason: "ListKindConflict", wantMessage: `"CronTabList" is already in use`},
		{name: "already ours", accepted: requested, usedResources: []string{"crontabs", "ct"}, usedKinds: []string{"CronTab"},
			wantNames: requested, wantReason: "NoConflicts", wantMessage: "no conflicts found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			crd := &api.CustomResourceDefinition{Spec: api.CustomResourceDefinitionSpec{Names: requested},
				Status: api.CustomResourceDefinitionStatus{AcceptedNames: c.accepted}}
			set := func(names []string) map[string]bool {
				m := map[string]bool{}
				for _, n := range names {
					m[n] = true
				}
				return m
			}
			names, accepted, established := acceptNames(crd, set(c.usedResources), set(c.usedKinds))
			if !sameNames(names, c.wantNames) {
				t.Errorf("names = %+v, want %+v", names, c.wantNames)
			}
			if accepted.Reason != c.wantReason || accepted.Message != c.wantMessage {
				t.Errorf("NamesAccepted = %+v, want %s: %s", accepted, c.wantReason, c.wantMessage)
			}
			wantEstablished := "NotAccepted"
			if c.wantReason == "NoConflicts" {
				wantEstablished = "Installing"
			}
			if established.Status != api.ConditionFalse || established.Reason != wantEstablished {
				t.Errorf("Established = %+v, want False/%s", established, wantEstablished)
			}
		})
	}
}

// TestCompareKubeVersions: discovery lists a custom group's versions GA
// first, then beta, then alpha, higher numbers first, then the rest.
func TestCompareKubeVersions(t *testing.T) {
	versions := []string{"v1alpha1", "foo", "v1", "v2beta1", "v1beta2", "v11alpha2", "v2", "v1beta1", "bar", "v10"}
	slices.SortFunc(versions, func(a, b string) int { return -compareKubeVersions(a, b) })
	want := []string{"v10", "v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v11alpha2", "v1alpha1", "bar", "foo"}
	if !slices.Equal(versions, want) {
		t.Errorf("order = %v, want %v", versions, want)
	}
}

// TestContentFields: dotted paths read and write a custom object's content.
func TestContentFields(t *testing.T) {
	content := map[string]any{"spec": map[string]any{"replicas": int64(2)}, "status": "broken"}
	if v, ok := contentField(content, "spec.replicas"); !ok || v != int64(2) {
		t.Errorf("spec.replicas = %v %v", v, ok)
	}
	if _, ok := contentField(content, "spec.missing"); ok {
		t.Error("spec.missing found")
	}
	if err := setContentField(content, "spec.template.replicas", int64(3)); err != nil {
		t.Fatal(err)
	}
	if v, _ := contentField(content, "spec.template.replicas"); v != int64(3) {
		t.Errorf("after set: %v", content)
	}
	if err := setContentField(content, "status.replicas", int64(1)); err == nil {
		t.Error("set under a string succeeded")
	}
}
