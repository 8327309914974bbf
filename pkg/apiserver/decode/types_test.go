package decode

import "kplane/pkg/api"

// testPod mimics the shape of kplane's API types until api.Pod exists:
// TypeMeta inlined, ObjectMeta under "metadata", lists with merge keys, a
// Leaf (api.Time) and an `any`.
type testPod struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata,omitempty"`
	Spec           testPodSpec   `json:"spec,omitempty"`
	Status         testPodStatus `json:"status,omitempty"`
}

type testPodSpec struct {
	Replicas     *int32            `json:"replicas,omitempty"`
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	Containers   []testContainer   `json:"containers,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	Extra        any               `json:"extra,omitempty"`
	Template     *testTemplate     `json:"template,omitempty"`
	// Matrix and Sidecars give the scanner lists of lists and maps of
	// objects to walk.
	Matrix   [][]int32                `json:"matrix,omitempty"`
	Sidecars map[string]testContainer `json:"sidecars,omitempty"`
}

type testTemplate struct {
	api.ObjectMeta `json:"metadata,omitempty"`
	Spec           testPodSpec `json:"spec,omitempty"`
}

type testContainer struct {
	Name  string     `json:"name"`
	Image string     `json:"image,omitempty"`
	Ports []testPort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"containerPort"`
	Env   []testEnv  `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

type testPort struct {
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
}

type testEnv struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

type testPodStatus struct {
	Phase      string          `json:"phase,omitempty"`
	StartTime  *api.Time       `json:"startTime,omitempty"`
	Conditions []api.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}
