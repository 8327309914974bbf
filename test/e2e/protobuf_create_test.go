package e2e

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/apiserver/protobuf"
	"kplane/test/framework"
)

// TestProtobufCreate: the kubectl commands built on client-go's typed
// clients send their bodies in Kubernetes protobuf; each must create the
// object it describes.
func TestProtobufCreate(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	framework.RequireKubectl(t)
	cases := []struct {
		name   string
		create []string
		get    []string
		into   any
		check  func(t *testing.T, obj any)
	}{
		{"configmap", []string{"create", "configmap", "x", "--from-literal=a=b"}, []string{"configmap", "x"}, &api.ConfigMap{},
			func(t *testing.T, obj any) {
				if cm := obj.(*api.ConfigMap); !reflect.DeepEqual(cm.Data, map[string]string{"a": "b"}) {
					t.Errorf("data = %v, want a=b", cm.Data)
				}
			}},
		{"deployment", []string{"create", "deployment", "web", "--image=nginx", "--replicas=2"}, []string{"deployment", "web"}, &api.Deployment{},
			func(t *testing.T, obj any) {
				d := obj.(*api.Deployment)
				if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
					t.Errorf("replicas = %v, want 2", d.Spec.Replicas)
				}
				if d.Spec.Selector == nil || d.Spec.Selector.MatchLabels["app"] != "web" || d.Spec.Template.Labels["app"] != "web" {
					t.Errorf("selector/template labels = %v / %v, want app=web", d.Spec.Selector, d.Spec.Template.Labels)
				}
				if cs := d.Spec.Template.Spec.Containers; len(cs) != 1 || cs[0].Image != "nginx" {
					t.Errorf("containers = %+v, want one nginx", cs)
				}
			}},
		{"namespace", []string{"create", "namespace", "n1"}, []string{"namespace", "n1"}, &api.Namespace{},
			func(t *testing.T, obj any) {
				if ns := obj.(*api.Namespace); ns.Status.Phase != api.NamespaceActive {
					t.Errorf("phase = %q, want Active", ns.Status.Phase)
				}
			}},
		{"secret", []string{"create", "secret", "generic", "s", "--from-literal=k=v"}, []string{"secret", "s"}, &api.Secret{},
			func(t *testing.T, obj any) {
				if s := obj.(*api.Secret); string(s.Data["k"]) != "v" || s.Type != api.SecretTypeOpaque {
					t.Errorf("data = %q, type = %q; want k=v, Opaque", s.Data, s.Type)
				}
			}},
		{"pod", []string{"run", "p", "--image=nginx", "--port=80", "--env=A=1", "--labels=tier=web"}, []string{"pod", "p"}, &api.Pod{},
			func(t *testing.T, obj any) {
				p := obj.(*api.Pod)
				if p.Labels["tier"] != "web" {
					t.Errorf("labels = %v, want tier=web", p.Labels)
				}
				c := p.Spec.Containers
				if len(c) != 1 || c[0].Image != "nginx" || len(c[0].Ports) != 1 || c[0].Ports[0].ContainerPort != 80 ||
					len(c[0].Env) != 1 || c[0].Env[0] != (api.EnvVar{Name: "A", Value: "1"}) {
					t.Errorf("containers = %+v, want nginx with port 80 and A=1", c)
				}
			}},
		{"job", []string{"create", "job", "j", "--image=busybox"}, []string{"job", "j"}, &api.Job{},
			func(t *testing.T, obj any) {
				spec := obj.(*api.Job).Spec.Template.Spec
				if spec.RestartPolicy != api.RestartPolicyNever || len(spec.Containers) != 1 || spec.Containers[0].Image != "busybox" {
					t.Errorf("pod spec = %+v, want busybox, restartPolicy Never", spec)
				}
			}},
		{"cronjob", []string{"create", "cronjob", "cj", "--image=busybox", "--schedule=*/5 * * * *"}, []string{"cronjob", "cj"}, &api.CronJob{},
			func(t *testing.T, obj any) {
				if cj := obj.(*api.CronJob); cj.Spec.Schedule != "*/5 * * * *" {
					t.Errorf("schedule = %q", cj.Spec.Schedule)
				}
			}},
		{"service", []string{"create", "service", "clusterip", "svc", "--tcp=80:8080"}, []string{"service", "svc"}, &api.Service{},
			func(t *testing.T, obj any) {
				s := obj.(*api.Service)
				if len(s.Spec.Ports) != 1 || s.Spec.Ports[0].Port != 80 || s.Spec.Ports[0].TargetPort != api.FromInt(8080) {
					t.Errorf("ports = %+v, want 80→8080", s.Spec.Ports)
				}
				if s.Spec.Type != api.ServiceTypeClusterIP || s.Spec.ClusterIP == "" || s.Spec.Selector["app"] != "svc" {
					t.Errorf("spec = %+v, want a ClusterIP service selecting app=svc", s.Spec)
				}
			}},
		{"serviceaccount", []string{"create", "serviceaccount", "sa"}, []string{"serviceaccount", "sa"}, &api.ServiceAccount{},
			func(t *testing.T, obj any) {
				if sa := obj.(*api.ServiceAccount); sa.Namespace != "default" {
					t.Errorf("namespace = %q, want default", sa.Namespace)
				}
			}},
		{"quota", []string{"create", "quota", "q", "--hard=cpu=1,memory=1Gi,pods=10"}, []string{"resourcequota", "q"}, &api.ResourceQuota{},
			func(t *testing.T, obj any) {
				hard := obj.(*api.ResourceQuota).Spec.Hard
				if mem := hard["memory"]; mem.String() != "1Gi" || len(hard) != 3 {
					t.Errorf("hard = %v, want cpu=1 memory=1Gi pods=10", hard)
				}
			}},
		{"role", []string{"create", "role", "r", "--verb=get,list", "--resource=pods"}, []string{"role", "r"}, &api.Role{},
			func(t *testing.T, obj any) {
				want := []api.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}}
				if r := obj.(*api.Role); !reflect.DeepEqual(r.Rules, want) {
					t.Errorf("rules = %+v, want %+v", r.Rules, want)
				}
			}},
		{"rolebinding", []string{"create", "rolebinding", "rb", "--role=r", "--user=alice"}, []string{"rolebinding", "rb"}, &api.RoleBinding{},
			func(t *testing.T, obj any) {
				rb := obj.(*api.RoleBinding)
				if rb.RoleRef.Name != "r" || len(rb.Subjects) != 1 || rb.Subjects[0].Name != "alice" {
					t.Errorf("roleRef = %+v, subjects = %+v", rb.RoleRef, rb.Subjects)
				}
			}},
		{"clusterrole", []string{"create", "clusterrole", "cr", "--verb=get", "--resource=nodes"}, []string{"clusterrole", "cr"}, &api.ClusterRole{},
			func(t *testing.T, obj any) {
				if cr := obj.(*api.ClusterRole); len(cr.Rules) != 1 || cr.Rules[0].Resources[0] != "nodes" {
					t.Errorf("rules = %+v", cr.Rules)
				}
			}},
		{"clusterrolebinding", []string{"create", "clusterrolebinding", "crb", "--clusterrole=cr", "--group=devs"}, []string{"clusterrolebinding", "crb"}, &api.ClusterRoleBinding{},
			func(t *testing.T, obj any) {
				crb := obj.(*api.ClusterRoleBinding)
				if crb.RoleRef.Kind != "ClusterRole" || len(crb.Subjects) != 1 || crb.Subjects[0].Kind != "Group" {
					t.Errorf("roleRef = %+v, subjects = %+v", crb.RoleRef, crb.Subjects)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := a.MustKubectl(t, tc.create...)
			if !strings.Contains(out, "created") {
				t.Errorf("kubectl %s printed %q, want \"… created\"", strings.Join(tc.create, " "), out)
			}
			got := a.MustKubectl(t, append([]string{"get", "-o", "json"}, tc.get...)...)
			if err := json.Unmarshal([]byte(got), tc.into); err != nil {
				t.Fatalf("kubectl get printed something that is not the object: %v\n%s", err, got)
			}
			if name := tc.into.(api.Object).GetObjectMeta().Name; name != tc.get[1] {
				t.Errorf("got object %q, want %q", name, tc.get[1])
			}
			tc.check(t, tc.into)
		})
	}
}

// TestProtobufRequests drives the protobuf path with raw requests: an
// update, and bodies the server must refuse with 400.
func TestProtobufRequests(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	encode := func(obj any, apiVersion, kind string) []byte {
		b, err := protobuf.Encode(obj, apiVersion, kind)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const path = "/api/v1/namespaces/default/configmaps"
	headers := []string{"Content-Type", protobuf.MediaType, "Accept", protobuf.MediaType + ",application/json"}

	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "pb"}, Data: map[string]string{"a": "1"}}
	created := a.Do(t, "POST", path, encode(cm, "v1", "ConfigMap"), headers...)
	if created.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", created.Code, created.Body)
	}
	var got api.ConfigMap
	if err := json.Unmarshal(created.Body, &got); err != nil || got.Data["a"] != "1" || got.ResourceVersion == "" {
		t.Fatalf("create answered %s (%v), want the stored ConfigMap in JSON", created.Body, err)
	}

	got.Data = map[string]string{"a": "2"}
	updated := a.Do(t, "PUT", path+"/pb", encode(&got, "v1", "ConfigMap"), headers...)
	if updated.Code != http.StatusOK || !strings.Contains(string(updated.Body), `"a":"2"`) {
		t.Fatalf("update: %d %s", updated.Code, updated.Body)
	}

	for _, tc := range []struct {
		name, message string
		body          []byte
	}{
		{"kind mismatch", "does not match the expected kind", encode(&api.Secret{ObjectMeta: api.ObjectMeta{Name: "s"}}, "v1", "Secret")},
		{"version mismatch", "does not match the expected API version", encode(cm, "v2", "ConfigMap")},
		{"not protobuf", "cannot be handled as a ConfigMap", []byte(`{"metadata":{"name":"j"}}`)},
		{"truncated", "cannot be handled as a ConfigMap", encode(cm, "v1", "ConfigMap")[:20]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.Do(t, "POST", path, tc.body, headers...)
			var status api.Status
			_ = json.Unmarshal(r.Body, &status)
			if r.Code != http.StatusBadRequest || status.Reason != "BadRequest" || !strings.Contains(status.Message, tc.message) {
				t.Errorf("got %d %s, want 400 BadRequest mentioning %q", r.Code, r.Body, tc.message)
			}
		})
	}
}
