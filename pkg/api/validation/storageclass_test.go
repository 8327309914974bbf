package validation

import (
	"strings"
	"testing"

	"kplane/pkg/api"
)

// storageClassDoc is kind's default class with kplane's provisioner.
const storageClassDoc = `{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: standard, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}, provisioner: kplane.io/hostpath, reclaimPolicy: Delete, volumeBindingMode: WaitForFirstConsumer}`

func TestValidateStorageClass(t *testing.T) {
	runKindCases(t, []kindCase{
		{"standard class", storageClassDoc, nil, nil},
		{"defaults fill policy and mode", `{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: fast}, provisioner: ebs.csi.aws.com}`, nil, nil},
		{"no provisioner", storageClassDoc, func(o api.Object) { o.(*api.StorageClass).Provisioner = "" },
			[]fieldErr{{required, "provisioner"}}},
		{"provisioner not a qualified name", storageClassDoc, func(o api.Object) { o.(*api.StorageClass).Provisioner = "kplane.io/host path" },
			[]fieldErr{{invalid, "provisioner"}}},
		{"upper-case provisioner is allowed", storageClassDoc, func(o api.Object) { o.(*api.StorageClass).Provisioner = "kubernetes.io/AWS-EBS" }, nil},
		{"namespace set", storageClassDoc, func(o api.Object) { o.GetObjectMeta().Namespace = "default" },
			[]fieldErr{{forbidden, "metadata.namespace"}}},
		{"unknown reclaim policy", storageClassDoc, func(o api.Object) {
			o.(*api.StorageClass).ReclaimPolicy = ptrTo(api.PersistentVolumeReclaimRecycle)
		}, []fieldErr{{notSupported, "reclaimPolicy"}}},
		{"unknown binding mode", storageClassDoc, func(o api.Object) {
			o.(*api.StorageClass).VolumeBindingMode = ptrTo(api.VolumeBindingMode("Later"))
		}, []fieldErr{{notSupported, "volumeBindingMode"}}},
		{"binding mode missing", storageClassDoc, func(o api.Object) { o.(*api.StorageClass).VolumeBindingMode = nil },
			[]fieldErr{{required, "volumeBindingMode"}}},
		{"empty parameter key", storageClassDoc, func(o api.Object) { o.(*api.StorageClass).Parameters = map[string]string{"": "x"} },
			[]fieldErr{{invalid, "parameters"}}},
		{"parameters too large", storageClassDoc, func(o api.Object) {
			o.(*api.StorageClass).Parameters = map[string]string{"blob": strings.Repeat("x", maxProvisionerParameterSize)}
		}, []fieldErr{{tooLongType, "parameters"}}},
		{"topology term without requirements, bad key, no values, duplicate value", storageClassDoc, func(o api.Object) {
			o.(*api.StorageClass).AllowedTopologies = []api.TopologySelectorTerm{
				{},
				{MatchLabelExpressions: []api.TopologySelectorLabelRequirement{
					{Key: "bad key", Values: []string{"a"}},
					{Key: "topology.kubernetes.io/zone"},
					{Key: "kubernetes.io/hostname", Values: []string{"node1", "node1"}},
				}},
			}
		}, []fieldErr{
			{required, "allowedTopologies[0]"},
			{invalid, "allowedTopologies[1].matchLabelExpressions[0].key"},
			{required, "allowedTopologies[1].matchLabelExpressions[1].values"},
			{duplicate, "allowedTopologies[1].matchLabelExpressions[2].values[1]"},
		}},
	})
}

func TestValidateStorageClassUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(class *api.StorageClass)
		want   []fieldErr
	}{
		{"default annotation removed", func(c *api.StorageClass) { c.Annotations = nil }, nil},
		{"expansion allowed", func(c *api.StorageClass) { c.AllowVolumeExpansion = ptrTo(true) }, nil},
		{"provisioner changed", func(c *api.StorageClass) { c.Provisioner = "rancher.io/local-path" },
			[]fieldErr{{forbidden, "provisioner"}}},
		{"parameters changed", func(c *api.StorageClass) { c.Parameters = map[string]string{"type": "gp3"} },
			[]fieldErr{{forbidden, "parameters"}}},
		{"reclaim policy changed", func(c *api.StorageClass) { c.ReclaimPolicy = ptrTo(api.PersistentVolumeReclaimRetain) },
			[]fieldErr{{forbidden, "reclaimPolicy"}}},
		{"binding mode changed", func(c *api.StorageClass) { c.VolumeBindingMode = ptrTo(api.VolumeBindingImmediate) },
			[]fieldErr{{invalid, "volumeBindingMode"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := asStored(decode[api.Object](t, storageClassDoc))
			obj := asStored(old)
			tt.mutate(obj.(*api.StorageClass))
			expectFields(t, ValidateUpdate(obj, old), tt.want...)
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
