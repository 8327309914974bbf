package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kplane/test/framework"
)

// seedObjects are the objects the seeds' YAMLs (examples/) create.
var seedObjects = []string{
	"job.batch/pi", "statefulset.apps/nginx-ss", "service/nginx-ss", "daemonset.apps/nginx-ds",
	"replicaset.apps/ng-rs", "deployment.apps/ng-dep", "service/nginx", "persistentvolume/pv001",
	"persistentvolume/pv002", "statefulset.apps/ng-headless", "service/ng-headless-svc", "daemonset.apps/ng-ds",
}

// TestApplySeedExamples: kubectl apply -f of every seed YAML creates the
// objects, and kubectl get prints them with kubectl's usual columns.
func TestApplySeedExamples(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	examples := filepath.Join(framework.RepoRoot(t), "examples")

	out := a.MustKubectl(t, "apply", "-f", examples)
	for _, obj := range seedObjects {
		if !strings.Contains(out, obj+" created") {
			t.Errorf("apply output lacks %q created:\n%s", obj, out)
		}
	}
	// A second apply of the same files changes nothing. The one exception is
	// upstream's too: volumeClaimTemplates is an atomic list and the server
	// defaults fields inside it (apiVersion, kind, volumeMode, status.phase),
	// so kubectl sees a difference and re-sends it ("configured").
	out = a.MustKubectl(t, "apply", "-f", examples)
	for _, obj := range seedObjects {
		if obj == "statefulset.apps/ng-headless" {
			continue
		}
		if !strings.Contains(out, obj+" unchanged") {
			t.Errorf("second apply output lacks %q unchanged:\n%s", obj, out)
		}
	}

	out = a.MustKubectl(t, "get", "po,deploy,rs,sts,ds,svc,pv,pvc", "-A")
	for _, want := range []string{
		`(?m)^NAMESPACE\s+NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$`,
		`(?m)^default\s+deployment.apps/ng-dep\s+0/4\s+0\s+0\s+\S+$`,
		`(?m)^NAMESPACE\s+NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$`,
		`(?m)^default\s+replicaset.apps/ng-rs\s+3\s+0\s+0\s+\S+$`,
		`(?m)^default\s+statefulset.apps/nginx-ss\s+0/2\s+\S+$`,
		`(?m)^NAMESPACE\s+NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE$`,
		`(?m)^default\s+daemonset.apps/nginx-ds\s+0\s+0\s+0\s+0\s+0\s+<none>\s+\S+$`,
		`(?m)^NAMESPACE\s+NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$`,
		`(?m)^default\s+service/kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443/TCP\s+\S+$`,
		`(?m)^default\s+service/nginx-ss\s+ClusterIP\s+None\s+<none>\s+80/TCP\s+\S+$`,
		`(?m)^default\s+service/ng-headless-svc\s+ClusterIP\s+None\s+<none>\s+8080/TCP\s+\S+$`,
		// Only the apiserver runs here: a new volume stays Pending until the
		// persistentvolume-binder (not started in this test) marks it Available.
		`(?m)^\s*persistentvolume/pv001\s+1Gi\s+RWO\s+Retain\s+(Pending|Available)\s+`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("kubectl get -A output does not match %s:\n%s", want, out)
		}
	}

	// -o wide adds the wide columns.
	out = a.MustKubectl(t, "get", "deploy,svc", "-o", "wide")
	for _, want := range []string{
		`(?m)^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$`,
		`(?m)^deployment.apps/ng-dep\s+0/4\s+0\s+0\s+\S+\s+ng-c-dep\s+nginx\s+dep=ng-dep-pod$`,
		`(?m)^service/ng-headless-svc\s+ClusterIP\s+None\s+<none>\s+8080/TCP\s+\S+\s+app=ng-headless$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("kubectl get -o wide does not match %s:\n%s", want, out)
		}
	}

	// -o yaml and -o json print the stored objects with their defaults.
	out = a.MustKubectl(t, "get", "sts", "nginx-ss", "-o", "yaml")
	for _, want := range []string{"podManagementPolicy: OrderedReady", "partition: 0", "type: RollingUpdate",
		"restartPolicy: Always", "terminationGracePeriodSeconds: 30", "serviceName: nginx-ss", "generation: 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("sts -o yaml lacks %q:\n%s", want, out)
		}
	}
	var job map[string]any
	if err := json.Unmarshal([]byte(a.MustKubectl(t, "get", "job", "pi", "-o", "json")), &job); err != nil {
		t.Fatalf("job -o json is not JSON: %v", err)
	}
	spec := job["spec"].(map[string]any)
	if spec["completions"] != 5.0 || spec["parallelism"] != 2.0 || spec["backoffLimit"] != 6.0 {
		t.Errorf("job spec = %v, want completions 5, parallelism 2, backoffLimit 6", spec)
	}
}

// TestAPIResources: kubectl api-resources lists every resource with its
// short names.
func TestAPIResources(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	out := a.MustKubectl(t, "api-resources")
	for _, want := range []string{
		`(?m)^pods\s+po\s+v1\s+true\s+Pod$`,
		`(?m)^namespaces\s+ns\s+v1\s+false\s+Namespace$`,
		`(?m)^nodes\s+no\s+v1\s+false\s+Node$`,
		`(?m)^componentstatuses\s+cs\s+v1\s+false\s+ComponentStatus$`,
		`(?m)^services\s+svc\s+v1\s+true\s+Service$`,
		`(?m)^endpoints\s+ep\s+v1\s+true\s+Endpoints$`,
		`(?m)^configmaps\s+cm\s+v1\s+true\s+ConfigMap$`,
		`(?m)^secrets\s+v1\s+true\s+Secret$`,
		`(?m)^serviceaccounts\s+sa\s+v1\s+true\s+ServiceAccount$`,
		`(?m)^persistentvolumes\s+pv\s+v1\s+false\s+PersistentVolume$`,
		`(?m)^persistentvolumeclaims\s+pvc\s+v1\s+true\s+PersistentVolumeClaim$`,
		`(?m)^resourcequotas\s+quota\s+v1\s+true\s+ResourceQuota$`,
		`(?m)^limitranges\s+limits\s+v1\s+true\s+LimitRange$`,
		`(?m)^events\s+ev\s+v1\s+true\s+Event$`,
		`(?m)^replicationcontrollers\s+rc\s+v1\s+true\s+ReplicationController$`,
		`(?m)^deployments\s+deploy\s+apps/v1\s+true\s+Deployment$`,
		`(?m)^replicasets\s+rs\s+apps/v1\s+true\s+ReplicaSet$`,
		`(?m)^statefulsets\s+sts\s+apps/v1\s+true\s+StatefulSet$`,
		`(?m)^daemonsets\s+ds\s+apps/v1\s+true\s+DaemonSet$`,
		`(?m)^controllerrevisions\s+apps/v1\s+true\s+ControllerRevision$`,
		`(?m)^horizontalpodautoscalers\s+hpa\s+autoscaling/v2\s+true\s+HorizontalPodAutoscaler$`,
		`(?m)^jobs\s+batch/v1\s+true\s+Job$`,
		`(?m)^cronjobs\s+cj\s+batch/v1\s+true\s+CronJob$`,
		`(?m)^leases\s+coordination.k8s.io/v1\s+true\s+Lease$`,
		`(?m)^endpointslices\s+discovery.k8s.io/v1\s+true\s+EndpointSlice$`,
		`(?m)^roles\s+rbac.authorization.k8s.io/v1\s+true\s+Role$`,
		`(?m)^clusterroles\s+rbac.authorization.k8s.io/v1\s+false\s+ClusterRole$`,
		`(?m)^rolebindings\s+rbac.authorization.k8s.io/v1\s+true\s+RoleBinding$`,
		`(?m)^clusterrolebindings\s+rbac.authorization.k8s.io/v1\s+false\s+ClusterRoleBinding$`,
		`(?m)^storageclasses\s+sc\s+storage.k8s.io/v1\s+false\s+StorageClass$`,
		`(?m)^priorityclasses\s+pc\s+scheduling.k8s.io/v1\s+false\s+PriorityClass$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("api-resources does not match %s:\n%s", want, out)
		}
	}
	// Short names resolve.
	a.MustKubectl(t, "get", "ns", "kube-system")
}

// writeFile writes content to a file in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
