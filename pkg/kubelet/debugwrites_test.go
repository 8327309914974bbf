package kubelet

import (
	"testing"

	"kplane/pkg/client"
)

func TestDescribeWriteSaysWhatAPodStatusWriteReported(t *testing.T) {
	running := `{"kind":"Pod","spec":{"containers":[{"name":"a"},{"name":"b"}]},` +
		`"status":{"phase":"Running","containerStatuses":[{"name":"a","ready":true},{"name":"b","ready":false}]}}`
	for _, tc := range []struct {
		name string
		w    client.WriteInfo
		want string
	}{
		{"pod status", client.WriteInfo{Resource: "pods", Subresource: "status", Response: []byte(running)}, "phase Running, ready 1/2"},
		{"pod patch", client.WriteInfo{Resource: "pods", Response: []byte(running)}, ""},
		{"node status", client.WriteInfo{Resource: "nodes", Subresource: "status", Response: []byte(`{}`)}, ""},
		{"undecodable", client.WriteInfo{Resource: "pods", Subresource: "status", Response: []byte(`{`)}, ""},
	} {
		if got := describeWrite(tc.w); got != tc.want {
			t.Errorf("%s: describeWrite = %q, want %q", tc.name, got, tc.want)
		}
	}
}
