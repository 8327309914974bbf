package patch

import "kplane/pkg/api"

// testDeployment mimics the shape of kplane's apps/v1 Deployment until the
// real type exists: the same JSON names and the same patch tags upstream
// puts on them.
type testDeployment struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata,omitempty"`
	Spec           testDeploymentSpec   `json:"spec,omitempty"`
	Status         testDeploymentStatus `json:"status,omitempty"`
}

type testDeploymentSpec struct {
	Replicas *int32             `json:"replicas,omitempty"`
	Selector *api.LabelSelector `json:"selector"`
	Template testPodTemplate    `json:"template"`
	Strategy testStrategy       `json:"strategy,omitempty" patchStrategy:"retainKeys"`
	Paused   bool               `json:"paused,omitempty"`
}

type testStrategy struct {
	Type          string             `json:"type,omitempty"`
	RollingUpdate *testRollingUpdate `json:"rollingUpdate,omitempty"`
}

type testRollingUpdate struct {
	MaxSurge       any `json:"maxSurge,omitempty"` // stands in for IntOrString
	MaxUnavailable any `json:"maxUnavailable,omitempty"`
}

type testPodTemplate struct {
	api.ObjectMeta `json:"metadata,omitempty"`
	Spec           testPodSpec `json:"spec,omitempty"`
}

type testPodSpec struct {
	Volumes        []testVolume      `json:"volumes,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name"`
	InitContainers []testContainer   `json:"initContainers,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	Containers     []testContainer   `json:"containers" patchStrategy:"merge" patchMergeKey:"name"`
	NodeSelector   map[string]string `json:"nodeSelector,omitempty"`
	Tolerations    []testToleration  `json:"tolerations,omitempty"`
	Overhead       map[string]any    `json:"overhead,omitempty" patchStrategy:"replace"`
}

type testContainer struct {
	Name         string            `json:"name"`
	Image        string            `json:"image,omitempty"`
	Command      []string          `json:"command,omitempty"`
	Args         []string          `json:"args,omitempty"`
	Ports        []testPort        `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"containerPort"`
	Env          []testEnv         `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	VolumeMounts []testMount       `json:"volumeMounts,omitempty" patchStrategy:"merge" patchMergeKey:"mountPath"`
	Resources    map[string]any    `json:"resources,omitempty"`
	Extra        any               `json:"extra,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
}

type testPort struct {
	Name          string `json:"name,omitempty"`
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
}

type testEnv struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

type testMount struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
}

type testVolume struct {
	Name      string          `json:"name"`
	EmptyDir  *struct{}       `json:"emptyDir,omitempty"`
	ConfigMap *testConfigMapS `json:"configMap,omitempty"`
}

type testConfigMapS struct {
	Name string `json:"name,omitempty"`
}

type testToleration struct {
	Key    string `json:"key,omitempty"`
	Effect string `json:"effect,omitempty"`
}

type testDeploymentStatus struct {
	Replicas   int32           `json:"replicas,omitempty"`
	Conditions []api.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	StartTime  *api.Time       `json:"startTime,omitempty"`
}
