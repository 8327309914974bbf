package validation

import (
	"testing"

	"kplane/pkg/api"
)

// The Deployment of the seed notes (ng-dep), the base of the variants below.
const seedDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ng-dep
  labels:
    app: ng-dep
spec:
  replicas: 4
  selector:
    matchLabels:
      dep: ng-dep-pod
  template:
    metadata:
      name: ng-dep-rs
      labels:
        dep: ng-dep-pod
    spec:
      containers:
      - name:  ng-c-dep
        image:  nginx
        ports:
        - containerPort:  80
`

func int32Ptr(v int32) *int32 { return &v }
func int64Ptr(v int64) *int64 { return &v }
func strPtr(s string) *string { return &s }
func intOrStr(v api.IntOrString) *api.IntOrString {
	return &v
}

func TestValidateDeployment(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(d *api.Deployment)
		want   []fieldErr
	}{
		{"seed", func(d *api.Deployment) {}, nil},
		{"invalid name", func(d *api.Deployment) { d.Name = "Ng_Dep" }, []fieldErr{{invalid, "metadata.name"}}},
		{"missing selector", func(d *api.Deployment) { d.Spec.Selector = nil }, []fieldErr{{required, "spec.selector"}, {invalid, "spec.template.metadata.labels"}}},
		{"empty selector", func(d *api.Deployment) { d.Spec.Selector = &api.LabelSelector{} }, []fieldErr{{invalid, "spec.selector"}}},
		{"selector does not match labels", func(d *api.Deployment) { d.Spec.Template.Labels = map[string]string{"app": "x"} },
			[]fieldErr{{invalid, "spec.template.metadata.labels"}}},
		{"template without labels", func(d *api.Deployment) { d.Spec.Template.Labels = nil }, []fieldErr{{invalid, "spec.template.metadata.labels"}}},
		{"bad selector operator", func(d *api.Deployment) {
			d.Spec.Selector.MatchExpressions = []api.LabelSelectorRequirement{{Key: "dep", Operator: "Equals"}}
		}, []fieldErr{{invalid, "spec.selector.matchExpressions[0].operator"}}},
		{"negative replicas", func(d *api.Deployment) { d.Spec.Replicas = int32Ptr(-1) }, []fieldErr{{invalid, "spec.replicas"}}},
		{"zero replicas ok", func(d *api.Deployment) { d.Spec.Replicas = int32Ptr(0) }, nil},
		{"restartPolicy Never", func(d *api.Deployment) { d.Spec.Template.Spec.RestartPolicy = api.RestartPolicyNever },
			[]fieldErr{{notSupported, "spec.template.spec.restartPolicy"}}},
		{"activeDeadlineSeconds", func(d *api.Deployment) { d.Spec.Template.Spec.ActiveDeadlineSeconds = int64Ptr(10) },
			[]fieldErr{{forbidden, "spec.template.spec.activeDeadlineSeconds"}}},
		{"missing image", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "" },
			[]fieldErr{{required, "spec.template.spec.containers[0].image"}}},
		{"bad port", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort = 70000 },
			[]fieldErr{{invalid, "spec.template.spec.containers[0].ports[0].containerPort"}}},
		{"surge and unavailable both 0", func(d *api.Deployment) {
			d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intOrStr(api.FromInt(0)), MaxUnavailable: intOrStr(api.FromString("0%"))}
		}, []fieldErr{{invalid, "spec.strategy.rollingUpdate.maxUnavailable"}}},
		{"seed strategy 1/1", func(d *api.Deployment) {
			d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intOrStr(api.FromInt(1)), MaxUnavailable: intOrStr(api.FromInt(1))}
		}, nil},
		{"bad percent", func(d *api.Deployment) { d.Spec.Strategy.RollingUpdate.MaxSurge = intOrStr(api.FromString("25")) },
			[]fieldErr{{invalid, "spec.strategy.rollingUpdate.maxSurge"}}},
		{"maxUnavailable over 100%", func(d *api.Deployment) {
			d.Spec.Strategy.RollingUpdate.MaxUnavailable = intOrStr(api.FromString("150%"))
		},
			[]fieldErr{{invalid, "spec.strategy.rollingUpdate.maxUnavailable"}}},
		{"negative maxSurge", func(d *api.Deployment) { d.Spec.Strategy.RollingUpdate.MaxSurge = intOrStr(api.FromInt(-1)) },
			[]fieldErr{{invalid, "spec.strategy.rollingUpdate.maxSurge"}}},
		{"Recreate with rollingUpdate", func(d *api.Deployment) { d.Spec.Strategy.Type = api.RecreateDeploymentStrategyType },
			[]fieldErr{{forbidden, "spec.strategy.rollingUpdate"}}},
		{"unknown strategy", func(d *api.Deployment) { d.Spec.Strategy = api.DeploymentStrategy{Type: "BlueGreen"} },
			[]fieldErr{{notSupported, "spec.strategy.type"}}},
		{"progress deadline below minReadySeconds", func(d *api.Deployment) { d.Spec.MinReadySeconds = 700 },
			[]fieldErr{{invalid, "spec.progressDeadlineSeconds"}}},
		{"negative revisionHistoryLimit", func(d *api.Deployment) { d.Spec.RevisionHistoryLimit = int32Ptr(-1) },
			[]fieldErr{{invalid, "spec.revisionHistoryLimit"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decode[*api.Deployment](t, seedDeployment)
			tt.mutate(d)
			expectFields(t, ValidateCreate(d), tt.want...)
		})
	}
}

func TestWorkloadMessagesReadLikeUpstream(t *testing.T) {
	d := decode[*api.Deployment](t, seedDeployment)
	d.Spec.Template.Labels = map[string]string{"app": "x"}
	expectMessages(t, ValidateCreate(d),
		"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"x\"}: `selector` does not match template `labels`")

	d = decode[*api.Deployment](t, seedDeployment)
	d.Spec.Selector = nil
	expectMessages(t, ValidateCreate(d), "spec.selector: Required value",
		"spec.template.metadata.labels: Invalid value: map[string]string{\"dep\":\"ng-dep-pod\"}: `selector` does not match template `labels`")

	d = decode[*api.Deployment](t, seedDeployment)
	d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intOrStr(api.FromInt(0)), MaxUnavailable: intOrStr(api.FromInt(0))}
	expectMessages(t, ValidateCreate(d), "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0")

	old := asStored(decode[*api.Deployment](t, seedDeployment))
	d = asStored(old)
	d.Spec.Selector.MatchLabels = map[string]string{"dep": "other"}
	d.Spec.Template.Labels = map[string]string{"dep": "other"}
	expectMessages(t, ValidateUpdate(d, old),
		"spec.selector: Invalid value: api.LabelSelector{MatchLabels:map[string]string{\"dep\":\"other\"}, MatchExpressions:[]api.LabelSelectorRequirement(nil)}: field is immutable")
}

func TestValidateDeploymentUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(d *api.Deployment)
		want   []fieldErr
	}{
		{"scale", func(d *api.Deployment) { d.Spec.Replicas = int32Ptr(10) }, nil},
		{"new image", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.27.0" }, nil},
		{"new template label kept under selector", func(d *api.Deployment) { d.Spec.Template.Labels["version"] = "2" }, nil},
		{"selector changed", func(d *api.Deployment) {
			d.Spec.Selector.MatchLabels["tier"] = "web"
			d.Spec.Template.Labels["tier"] = "web"
		}, []fieldErr{{invalid, "spec.selector"}}},
		{"name changed", func(d *api.Deployment) { d.Name = "other" }, []fieldErr{{invalid, "metadata.name"}}},
		{"template labels escape selector", func(d *api.Deployment) { d.Spec.Template.Labels = map[string]string{"x": "y"} },
			[]fieldErr{{invalid, "spec.template.metadata.labels"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := asStored(decode[*api.Deployment](t, seedDeployment))
			d := asStored(old)
			tt.mutate(d)
			expectFields(t, ValidateUpdate(d, old), tt.want...)
		})
	}
}

const seedReplicaSet = `
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: ng-rs
spec:
  replicas: 3
  selector:
    matchLabels:
      replicaset: test
  template:
    metadata:
      name: ng-pod
      labels:
        replicaset: test
    spec:
      containers:
        - image:  nginx
          name:  ng-c
          ports:
          - containerPort: 80
`

func TestValidateReplicaSet(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(rs *api.ReplicaSet)
		want   []fieldErr
	}{
		{"seed", func(rs *api.ReplicaSet) {}, nil},
		{"missing selector", func(rs *api.ReplicaSet) { rs.Spec.Selector = nil }, []fieldErr{{required, "spec.selector"}, {invalid, "spec.template.metadata.labels"}}},
		{"selector by expression", func(rs *api.ReplicaSet) {
			rs.Spec.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "replicaset", Operator: "In", Values: []string{"test", "prod"}}}}
		}, nil},
		{"expression does not match", func(rs *api.ReplicaSet) {
			rs.Spec.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "replicaset", Operator: "NotIn", Values: []string{"test"}}}}
		}, []fieldErr{{invalid, "spec.template.metadata.labels"}}},
		{"no containers", func(rs *api.ReplicaSet) { rs.Spec.Template.Spec.Containers = nil }, []fieldErr{{required, "spec.template.spec.containers"}}},
		{"negative minReadySeconds", func(rs *api.ReplicaSet) { rs.Spec.MinReadySeconds = -5 }, []fieldErr{{invalid, "spec.minReadySeconds"}}},
		{"no namespace", func(rs *api.ReplicaSet) { rs.Namespace = "" }, []fieldErr{{required, "metadata.namespace"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := decode[*api.ReplicaSet](t, seedReplicaSet)
			tt.mutate(rs)
			expectFields(t, ValidateCreate(rs), tt.want...)
		})
	}
	old := asStored(decode[*api.ReplicaSet](t, seedReplicaSet))
	rs := asStored(old)
	rs.Spec.Selector.MatchLabels = map[string]string{"replicaset": "prod"}
	rs.Spec.Template.Labels = map[string]string{"replicaset": "prod"}
	expectFields(t, ValidateUpdate(rs, old), fieldErr{invalid, "spec.selector"})
}

const seedReplicationController = `
apiVersion: v1
kind: ReplicationController
metadata:
  name: nginx
spec:
  replicas: 3
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx
`

func TestValidateReplicationController(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(rc *api.ReplicationController)
		want   []fieldErr
	}{
		{"selector defaulted from labels", func(rc *api.ReplicationController) {}, nil},
		{"selector does not match", func(rc *api.ReplicationController) { rc.Spec.Selector = map[string]string{"app": "other"} },
			[]fieldErr{{invalid, "spec.template.metadata.labels"}}},
		{"no selector", func(rc *api.ReplicationController) { rc.Spec.Selector = nil }, []fieldErr{{required, "spec.selector"}}},
		{"no template", func(rc *api.ReplicationController) { rc.Spec.Template = nil }, []fieldErr{{required, "spec.template"}}},
		{"OnFailure", func(rc *api.ReplicationController) { rc.Spec.Template.Spec.RestartPolicy = api.RestartPolicyOnFailure },
			[]fieldErr{{notSupported, "spec.template.spec.restartPolicy"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := decode[*api.ReplicationController](t, seedReplicationController)
			tt.mutate(rc)
			expectFields(t, ValidateCreate(rc), tt.want...)
		})
	}
}

const seedDaemonSet = `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nginx-ds
spec:
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
        - name: nginx
          image: nginx:1.27.0
`

func TestValidateDaemonSet(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(ds *api.DaemonSet)
		want   []fieldErr
	}{
		{"seed", func(ds *api.DaemonSet) {}, nil},
		// Upstream has no Required check for a DaemonSet's selector.
		{"missing selector", func(ds *api.DaemonSet) { ds.Spec.Selector = nil }, []fieldErr{{invalid, "spec.template.metadata.labels"}}},
		{"empty selector", func(ds *api.DaemonSet) { ds.Spec.Selector = &api.LabelSelector{} }, []fieldErr{{invalid, "spec.selector"}}},
		{"mismatch", func(ds *api.DaemonSet) { ds.Spec.Template.Labels["app"] = "apache" }, []fieldErr{{invalid, "spec.template.metadata.labels"}}},
		{"surge and unavailable", func(ds *api.DaemonSet) { ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = intOrStr(api.FromInt(1)) },
			[]fieldErr{{invalid, "spec.updateStrategy.rollingUpdate.maxSurge"}}},
		{"surge only", func(ds *api.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{MaxSurge: intOrStr(api.FromString("10%")), MaxUnavailable: intOrStr(api.FromInt(0))}
		}, nil},
		{"neither", func(ds *api.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = intOrStr(api.FromInt(0))
		},
			[]fieldErr{{required, "spec.updateStrategy.rollingUpdate.maxUnavailable"}}},
		{"unknown strategy", func(ds *api.DaemonSet) { ds.Spec.UpdateStrategy = api.DaemonSetUpdateStrategy{Type: "Rolling"} },
			[]fieldErr{{notSupported, "spec.updateStrategy.type"}}},
		{"duplicate container names", func(ds *api.DaemonSet) {
			ds.Spec.Template.Spec.Containers = append(ds.Spec.Template.Spec.Containers, ds.Spec.Template.Spec.Containers[0])
		}, []fieldErr{{duplicate, "spec.template.spec.containers[1].name"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := decode[*api.DaemonSet](t, seedDaemonSet)
			tt.mutate(ds)
			expectFields(t, ValidateCreate(ds), tt.want...)
		})
	}
}

const seedStatefulSet = `
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ng-headless
spec:
  selector:
    matchLabels:
      app: ng-headless
  serviceName: "ng-headless-svc"
  replicas: 2
  template:
    metadata:
      labels:
        app: ng-headless
    spec:
      containers:
      - name: ng-headless-c
        image: nginx
        ports:
        - containerPort: 80
          name: web
        volumeMounts:
        - name: vol
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: vol
    spec:
      accessModes: [ "ReadWriteOnce" ]
      resources:
        requests:
          storage: 1Gi
`

func TestValidateStatefulSet(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(s *api.StatefulSet)
		want   []fieldErr
	}{
		{"seed", func(s *api.StatefulSet) {}, nil},
		{"name with dots", func(s *api.StatefulSet) { s.Name = "ng.headless" }, []fieldErr{{invalid, "metadata.name"}}},
		{"missing selector", func(s *api.StatefulSet) { s.Spec.Selector = nil }, []fieldErr{{required, "spec.selector"}, {invalid, "spec.template.metadata.labels"}}},
		{"mount of unknown claim", func(s *api.StatefulSet) { s.Spec.VolumeClaimTemplates[0].Name = "data" },
			[]fieldErr{{errorsNotFound, "spec.template.spec.containers[0].volumeMounts[0].name"}}},
		{"claim without storage", func(s *api.StatefulSet) { s.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests = nil },
			[]fieldErr{{required, "spec.volumeClaimTemplates[0].spec.resources.requests[storage]"}}},
		{"claim without access modes", func(s *api.StatefulSet) { s.Spec.VolumeClaimTemplates[0].Spec.AccessModes = nil },
			[]fieldErr{{required, "spec.volumeClaimTemplates[0].spec.accessModes"}}},
		{"bad serviceName", func(s *api.StatefulSet) { s.Spec.ServiceName = "ng_headless" }, []fieldErr{{invalid, "spec.serviceName"}}},
		{"bad podManagementPolicy", func(s *api.StatefulSet) { s.Spec.PodManagementPolicy = "Random" }, []fieldErr{{invalid, "spec.podManagementPolicy"}}},
		{"negative partition", func(s *api.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Partition = int32Ptr(-1) },
			[]fieldErr{{invalid, "spec.updateStrategy.rollingUpdate.partition"}}},
		{"OnDelete with rollingUpdate", func(s *api.StatefulSet) { s.Spec.UpdateStrategy.Type = api.OnDeleteStatefulSetStrategyType },
			[]fieldErr{{invalid, "spec.updateStrategy.rollingUpdate"}}},
		{"restartPolicy OnFailure", func(s *api.StatefulSet) { s.Spec.Template.Spec.RestartPolicy = api.RestartPolicyOnFailure },
			[]fieldErr{{notSupported, "spec.template.spec.restartPolicy"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := decode[*api.StatefulSet](t, seedStatefulSet)
			tt.mutate(s)
			expectFields(t, ValidateCreate(s), tt.want...)
		})
	}
}

func TestValidateStatefulSetUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(s *api.StatefulSet)
		want   []fieldErr
	}{
		{"scale", func(s *api.StatefulSet) { s.Spec.Replicas = int32Ptr(5) }, nil},
		{"new image", func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:1.27.0" }, nil},
		{"partition", func(s *api.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Partition = int32Ptr(1) }, nil},
		{"serviceName changed", func(s *api.StatefulSet) { s.Spec.ServiceName = "other" }, []fieldErr{{forbidden, "spec"}}},
		{"claim size changed", func(s *api.StatefulSet) {
			s.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests["storage"] = api.MustParseQuantity("2Gi")
		}, []fieldErr{{forbidden, "spec"}}},
		{"podManagementPolicy changed", func(s *api.StatefulSet) { s.Spec.PodManagementPolicy = api.ParallelPodManagement }, []fieldErr{{forbidden, "spec"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := asStored(decode[*api.StatefulSet](t, seedStatefulSet))
			s := asStored(old)
			tt.mutate(s)
			expectFields(t, ValidateUpdate(s, old), tt.want...)
		})
	}
	old := asStored(decode[*api.StatefulSet](t, seedStatefulSet))
	s := asStored(old)
	s.Spec.ServiceName = "other"
	expectMessages(t, ValidateUpdate(s, old),
		"spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden\nchanged: spec.serviceName")
}
