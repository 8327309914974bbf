package persistentvolume

import (
	"testing"

	"kplane/pkg/api"
)

// The matching rules, one case each: which volume findBestVolume picks for
// a claim among the given ones ("" for none).
func TestFindBestVolume(t *testing.T) {
	now := api.Now()
	deleting := func(pv *api.PersistentVolume) { pv.DeletionTimestamp = &now }
	rwoRox := volumeModes(api.ReadWriteOnce, api.ReadOnlyMany)
	rwoRoxRwx := volumeModes(api.ReadWriteOnce, api.ReadOnlyMany, api.ReadWriteMany)
	tests := []struct {
		name    string
		claim   *api.PersistentVolumeClaim
		volumes []*api.PersistentVolume
		want    string
	}{
		{"the smallest volume that is big enough",
			testClaim("data", "2Gi"),
			[]*api.PersistentVolume{testVolume("big", "10Gi"), testVolume("small", "1Gi"), testVolume("fit", "2Gi"), testVolume("mid", "5Gi")},
			"fit"},
		{"no volume is big enough",
			testClaim("data", "2Gi"), []*api.PersistentVolume{testVolume("small", "1Gi")}, ""},
		{"1Gi and 1073741824 are the same size",
			testClaim("data", "1073741824"), []*api.PersistentVolume{testVolume("pv", "1Gi")}, "pv"},
		{"equal volumes go by name (pv001 before pv002)",
			testClaim("data", "1Gi"), []*api.PersistentVolume{testVolume("pv002", "1Gi"), testVolume("pv001", "1Gi")}, "pv001"},
		{"the volume must offer every access mode asked for",
			testClaim("data", "1Gi", claimModes(api.ReadWriteMany)),
			[]*api.PersistentVolume{testVolume("rwo", "1Gi"), testVolume("rwx", "5Gi", volumeModes(api.ReadWriteMany))},
			"rwx"},
		{"a superset of the access modes fits",
			testClaim("data", "1Gi"), []*api.PersistentVolume{testVolume("multi", "1Gi", rwoRox)}, "multi"},
		{"fewer extra access modes beat a smaller size",
			testClaim("data", "1Gi"),
			[]*api.PersistentVolume{testVolume("nfs", "1Gi", rwoRoxRwx), testVolume("disk", "8Gi", rwoRox)},
			"disk"},
		{"a claim without a class takes only volumes without one",
			testClaim("data", "1Gi"),
			[]*api.PersistentVolume{testVolume("fast", "1Gi", volumeClassName("fast")), testVolume("plain", "5Gi")},
			"plain"},
		{"a claim with a class takes only volumes of that class",
			testClaim("data", "1Gi", claimClassName("fast")),
			[]*api.PersistentVolume{testVolume("plain", "1Gi"), testVolume("slow", "1Gi", volumeClassName("slow")), testVolume("fast", "5Gi", volumeClassName("fast"))},
			"fast"},
		{"the class in the beta annotation counts",
			testClaim("data", "1Gi", func(c *api.PersistentVolumeClaim) {
				c.Annotations = map[string]string{annBetaStorageClass: "fast"}
			}),
			[]*api.PersistentVolume{testVolume("plain", "1Gi"), testVolume("fast", "1Gi", func(pv *api.PersistentVolume) {
				pv.Annotations = map[string]string{annBetaStorageClass: "fast"}
			})},
			"fast"},
		{"the claim's selector must match the volume's labels",
			testClaim("data", "1Gi", claimSelector(map[string]string{"tier": "gold"})),
			[]*api.PersistentVolume{testVolume("unlabelled", "1Gi"), testVolume("silver", "1Gi", volumeLabels(map[string]string{"tier": "silver"})),
				testVolume("gold", "5Gi", volumeLabels(map[string]string{"tier": "gold"}))},
			"gold"},
		{"volumeMode must be equal",
			testClaim("data", "1Gi", blockClaim),
			[]*api.PersistentVolume{testVolume("fs", "1Gi"), testVolume("block", "5Gi", blockVolume)},
			"block"},
		{"a volume bound to another claim is taken",
			testClaim("data", "1Gi"),
			[]*api.PersistentVolume{testVolume("taken", "1Gi", claimRefTo("default", "other", "uid-other")), testVolume("free", "2Gi")},
			"free"},
		{"a volume pre-bound to another claim is reserved for it",
			testClaim("data", "1Gi"),
			[]*api.PersistentVolume{testVolume("reserved", "1Gi", claimRefTo("default", "other", ""))},
			""},
		{"a volume pre-bound to this claim wins over a closer fit, whatever its class",
			testClaim("data", "1Gi"),
			[]*api.PersistentVolume{testVolume("free", "1Gi"), testVolume("mine", "5Gi", volumeClassName("fast"), claimRefTo("default", "data", ""))},
			"mine"},
		{"a volume pre-bound to this claim must still be big enough",
			testClaim("data", "2Gi"),
			[]*api.PersistentVolume{testVolume("mine", "1Gi", claimRefTo("default", "data", ""))},
			""},
		{"a claimRef with another UID is an earlier claim of the same name",
			testClaim("data", "1Gi"),
			[]*api.PersistentVolume{testVolume("released", "1Gi", claimRefTo("default", "data", "uid-deleted"), volumePhase(api.VolumeReleased))},
			""},
		{"a claimRef in another namespace is another claim",
			testClaim("data", "1Gi"),
			[]*api.PersistentVolume{testVolume("theirs", "1Gi", claimRefTo("team-b", "data", ""))},
			""},
		{"a volume being deleted is not offered",
			testClaim("data", "1Gi"), []*api.PersistentVolume{testVolume("going", "1Gi", deleting)}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := findBestVolume(tc.claim, tc.volumes)
			if err != nil {
				t.Fatal(err)
			}
			name := ""
			if got != nil {
				name = got.Name
			}
			if name != tc.want {
				t.Errorf("findBestVolume = %q, want %q", name, tc.want)
			}
		})
	}
}

// A claim naming its volume gets it only if it fits; the reasons are
// upstream's.
func TestVolumeMismatch(t *testing.T) {
	tests := []struct {
		name  string
		pv    *api.PersistentVolume
		claim *api.PersistentVolumeClaim
		want  string
	}{
		{"fits", testVolume("pv", "1Gi"), testClaim("data", "1Gi"), ""},
		{"fits even when the selector would not match",
			testVolume("pv", "1Gi"), testClaim("data", "1Gi", claimSelector(map[string]string{"tier": "gold"})), ""},
		{"too small", testVolume("pv", "1Gi"), testClaim("data", "2Gi"), "requested PV is too small"},
		{"other class", testVolume("pv", "1Gi", volumeClassName("fast")), testClaim("data", "1Gi"), "storageClassName does not match"},
		{"other volumeMode", testVolume("pv", "1Gi", blockVolume), testClaim("data", "1Gi"), "incompatible volumeMode"},
		{"missing access mode", testVolume("pv", "1Gi"), testClaim("data", "1Gi", claimModes(api.ReadWriteMany)), "incompatible accessMode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := volumeMismatch(tc.pv, tc.claim); got != tc.want {
				t.Errorf("volumeMismatch = %q, want %q", got, tc.want)
			}
		})
	}
}

// Why findBestVolume passes over a volume, as the decision's lines say it:
// a volume pre-bound to the claim must still be big enough, but its class
// and labels do not count.
func TestVolumeUnfit(t *testing.T) {
	gold := claimSelector(map[string]string{"tier": "gold"})
	now := api.Now()
	deleting := func(pv *api.PersistentVolume) { pv.DeletionTimestamp = &now }
	tests := []struct {
		name  string
		pv    *api.PersistentVolume
		claim *api.PersistentVolumeClaim
		want  string
	}{
		{"fits", testVolume("pv", "1Gi"), testClaim("data", "1Gi"), ""},
		{"pre-bound to the claim, of another class and labels", testVolume("pv", "1Gi", volumeClassName("fast"), claimRefTo("default", "data", "")),
			testClaim("data", "1Gi", gold), ""},
		{"pre-bound to the claim but too small", testVolume("pv", "1Gi", claimRefTo("default", "data", "")),
			testClaim("data", "2Gi"), "requested PV is too small"},
		{"claimed by another claim", testVolume("pv", "1Gi", claimRefTo("default", "other", "uid-other")),
			testClaim("data", "1Gi"), "claimed by default/other"},
		{"other class", testVolume("pv", "1Gi", volumeClassName("fast")), testClaim("data", "1Gi"), "storageClassName does not match"},
		{"labels the selector does not match", testVolume("pv", "1Gi"), testClaim("data", "1Gi", gold), "labels do not match the claim's selector"},
		{"being deleted", testVolume("pv", "1Gi", deleting), testClaim("data", "1Gi"), `the volume is marked for deletion "pv"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			selector, err := selectorOf(tc.claim)
			if err != nil {
				t.Fatal(err)
			}
			if got := volumeUnfit(tc.pv, tc.claim, selector); got != tc.want {
				t.Errorf("volumeUnfit = %q, want %q", got, tc.want)
			}
		})
	}
}
