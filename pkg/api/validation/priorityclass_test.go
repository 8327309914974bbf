package validation

import (
	"testing"

	"kplane/pkg/api"
)

// priorityClassDoc is a user's class as the Kubernetes docs show one.
const priorityClassDoc = `{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high-priority}, value: 1000000, description: "For XYZ service pods only."}`

func TestValidatePriorityClass(t *testing.T) {
	setName := func(name string, value int32) func(api.Object) {
		return func(o api.Object) {
			class := o.(*api.PriorityClass)
			class.Name, class.Value = name, value
		}
	}
	runKindCases(t, []kindCase{
		{"user class", priorityClassDoc, nil, nil},
		{"negative value", priorityClassDoc, func(o api.Object) { o.(*api.PriorityClass).Value = -10 }, nil},
		{"highest user value", priorityClassDoc, func(o api.Object) { o.(*api.PriorityClass).Value = api.HighestUserDefinablePriority }, nil},
		{"above the highest user value", priorityClassDoc, func(o api.Object) { o.(*api.PriorityClass).Value = api.HighestUserDefinablePriority + 1 },
			[]fieldErr{{forbidden, "value"}}},
		{"system-node-critical as the system has it", priorityClassDoc, setName(api.SystemNodeCritical, 2000001000), nil},
		{"system-cluster-critical as the system has it", priorityClassDoc, setName(api.SystemClusterCritical, 2000000000), nil},
		{"system class with another value", priorityClassDoc, setName(api.SystemClusterCritical, 5),
			[]fieldErr{{forbidden, "metadata.name"}}},
		{"system class as the global default", priorityClassDoc, func(o api.Object) {
			setName(api.SystemNodeCritical, 2000001000)(o)
			o.(*api.PriorityClass).GlobalDefault = true
		}, []fieldErr{{forbidden, "metadata.name"}}},
		{"unknown system- name", priorityClassDoc, setName("system-mine", 10), []fieldErr{{forbidden, "metadata.name"}}},
		{"name not a DNS subdomain", priorityClassDoc, setName("High", 10), []fieldErr{{invalid, "metadata.name"}}},
		{"namespace set", priorityClassDoc, func(o api.Object) { o.GetObjectMeta().Namespace = "default" },
			[]fieldErr{{forbidden, "metadata.namespace"}}},
		{"preemption policy Never", priorityClassDoc, func(o api.Object) { o.(*api.PriorityClass).PreemptionPolicy = ptrTo(api.PreemptNever) }, nil},
		{"unknown preemption policy", priorityClassDoc, func(o api.Object) {
			o.(*api.PriorityClass).PreemptionPolicy = ptrTo(api.PreemptionPolicy("Sometimes"))
		}, []fieldErr{{notSupported, "preemptionPolicy"}}},
		{"empty preemption policy", priorityClassDoc, func(o api.Object) {
			o.(*api.PriorityClass).PreemptionPolicy = ptrTo(api.PreemptionPolicy(""))
		}, []fieldErr{{required, "preemptionPolicy"}}},
	})
}

// The messages are upstream's, word for word: kubectl users and Helm see them.
func TestValidatePriorityClassMessages(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*api.PriorityClass)
		want   string
	}{
		{"above the highest user value", func(c *api.PriorityClass) { c.Value = 2000000000 },
			"value: Forbidden: maximum allowed value of a user defined priority is 1000000000"},
		{"unknown system- name", func(c *api.PriorityClass) { c.Name = "system-mine" },
			"metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"},
		{"system class with another value", func(c *api.PriorityClass) { c.Name = api.SystemNodeCritical },
			"metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000"},
		{"system class as the global default", func(c *api.PriorityClass) {
			c.Name, c.Value, c.GlobalDefault = api.SystemClusterCritical, 2000000000, true
		}, "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must be false"},
		{"unknown preemption policy", func(c *api.PriorityClass) { c.PreemptionPolicy = ptrTo(api.PreemptionPolicy("Sometimes")) },
			`preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			class := decode[*api.PriorityClass](t, priorityClassDoc)
			tt.mutate(class)
			expectMessages(t, ValidateCreate(class), tt.want)
		})
	}
}

func TestValidatePriorityClassUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*api.PriorityClass)
		want   []fieldErr
	}{
		{"description changed", func(c *api.PriorityClass) { c.Description = "For everything." }, nil},
		{"made the global default", func(c *api.PriorityClass) { c.GlobalDefault = true }, nil},
		{"value changed", func(c *api.PriorityClass) { c.Value = 2000 }, []fieldErr{{forbidden, "value"}}},
		{"preemption policy changed", func(c *api.PriorityClass) { c.PreemptionPolicy = ptrTo(api.PreemptNever) },
			[]fieldErr{{invalid, "preemptionPolicy"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := asStored(decode[api.Object](t, priorityClassDoc))
			obj := asStored(old)
			tt.mutate(obj.(*api.PriorityClass))
			expectFields(t, ValidateUpdate(obj, old), tt.want...)
		})
	}
	old := asStored(decode[api.Object](t, priorityClassDoc))
	obj := asStored(old)
	obj.(*api.PriorityClass).Value = 2000
	expectMessages(t, ValidateUpdate(obj, old), "value: Forbidden: may not be changed in an update.")
}

// A pod's preemptionPolicy is checked as a class's is.
func TestValidatePodPreemptionPolicy(t *testing.T) {
	runKindCases(t, []kindCase{
		{"pod preempting", basePod, func(o api.Object) { o.(*api.Pod).Spec.PreemptionPolicy = ptrTo(api.PreemptLowerPriority) }, nil},
		{"pod with an unknown preemption policy", basePod, func(o api.Object) {
			o.(*api.Pod).Spec.PreemptionPolicy = ptrTo(api.PreemptionPolicy("Always"))
		}, []fieldErr{{notSupported, "spec.preemptionPolicy"}}},
	})
}
