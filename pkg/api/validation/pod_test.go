package validation

import (
	"strings"
	"testing"

	"kplane/pkg/api"
)

const basePod = `
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: nginx
    image: nginx:1.27.0
    ports:
    - name: http
      containerPort: 80
    resources:
      requests: {cpu: 250m, memory: 64Mi}
      limits: {cpu: 500m, memory: 128Mi}
    volumeMounts:
    - name: html
      mountPath: /usr/share/nginx/html
    readinessProbe:
      httpGet: {path: /, port: http}
    livenessProbe:
      tcpSocket: {port: 80}
  - name: sidecar
    image: busybox
    command: [sh, -c, "sleep 3600"]
    env:
    - name: POD_NAME
      valueFrom:
        fieldRef: {fieldPath: metadata.name}
  volumes:
  - name: html
    emptyDir: {}
  - name: config
    configMap: {name: web-config}
  tolerations:
  - key: node.kubernetes.io/not-ready
    operator: Exists
    effect: NoExecute
    tolerationSeconds: 300
`

func TestValidatePod(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(p *api.Pod)
		want   []fieldErr
	}{
		{"valid", func(p *api.Pod) {}, nil},
		{"no containers", func(p *api.Pod) { p.Spec.Containers = nil }, []fieldErr{{required, "spec.containers"}}},
		{"container name missing", func(p *api.Pod) { p.Spec.Containers[1].Name = "" }, []fieldErr{{required, "spec.containers[1].name"}}},
		{"container name not a label", func(p *api.Pod) { p.Spec.Containers[1].Name = "Side_Car" }, []fieldErr{{invalid, "spec.containers[1].name"}}},
		{"duplicate container names", func(p *api.Pod) { p.Spec.Containers[1].Name = "nginx" }, []fieldErr{{duplicate, "spec.containers[1].name"}}},
		{"init container reuses a name", func(p *api.Pod) {
			p.Spec.InitContainers = []api.Container{{Name: "nginx", Image: "busybox"}}
		}, []fieldErr{{duplicate, "spec.initContainers[0].name"}}},
		{"image missing", func(p *api.Pod) { p.Spec.Containers[0].Image = "" }, []fieldErr{{required, "spec.containers[0].image"}}},
		{"image with spaces", func(p *api.Pod) { p.Spec.Containers[0].Image = " nginx" }, []fieldErr{{invalid, "spec.containers[0].image"}}},
		{"port zero", func(p *api.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 0 }, []fieldErr{{required, "spec.containers[0].ports[0].containerPort"}}},
		{"port too big", func(p *api.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 65536 }, []fieldErr{{invalid, "spec.containers[0].ports[0].containerPort"}}},
		{"bad port name", func(p *api.Pod) { p.Spec.Containers[0].Ports[0].Name = "web--http" }, []fieldErr{{invalid, "spec.containers[0].ports[0].name"}}},
		{"duplicate port name", func(p *api.Pod) {
			p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, api.ContainerPort{Name: "http", ContainerPort: 8080})
		}, []fieldErr{{duplicate, "spec.containers[0].ports[1].name"}}},
		{"bad protocol", func(p *api.Pod) { p.Spec.Containers[0].Ports[0].Protocol = "HTTP" }, []fieldErr{{notSupported, "spec.containers[0].ports[0].protocol"}}},
		{"host port conflict", func(p *api.Pod) {
			p.Spec.Containers[0].Ports[0].HostPort = 8080
			p.Spec.Containers[1].Ports = []api.ContainerPort{{ContainerPort: 9090, HostPort: 8080}}
		}, []fieldErr{{duplicate, "spec.containers[1].ports[0].hostPort"}}},
		{"request above limit", func(p *api.Pod) { p.Spec.Containers[0].Resources.Requests["cpu"] = api.MustParseQuantity("1") },
			[]fieldErr{{invalid, "spec.containers[0].resources.requests"}}},
		{"bad restartPolicy", func(p *api.Pod) { p.Spec.RestartPolicy = "Sometimes" }, []fieldErr{{notSupported, "spec.restartPolicy"}}},
		{"OnFailure ok", func(p *api.Pod) { p.Spec.RestartPolicy = api.RestartPolicyOnFailure }, nil},
		{"duplicate volume", func(p *api.Pod) { p.Spec.Volumes[1].Name = "html" }, []fieldErr{{duplicate, "spec.volumes[1].name"}}},
		{"volume with two sources", func(p *api.Pod) { p.Spec.Volumes[0].HostPath = &api.HostPathVolumeSource{Path: "/tmp"} },
			[]fieldErr{{forbidden, "spec.volumes[0].emptyDir"}}},
		{"configMap volume without name", func(p *api.Pod) { p.Spec.Volumes[1].ConfigMap.Name = "" },
			[]fieldErr{{required, "spec.volumes[1].configMap.name"}}},
		{"mount of undefined volume", func(p *api.Pod) { p.Spec.Containers[0].VolumeMounts[0].Name = "data" },
			[]fieldErr{{errorsNotFound, "spec.containers[0].volumeMounts[0].name"}}},
		{"mount path reused", func(p *api.Pod) {
			p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, api.VolumeMount{Name: "config", MountPath: "/usr/share/nginx/html"})
		}, []fieldErr{{invalid, "spec.containers[0].volumeMounts[1].mountPath"}}},
		{"subPath escapes", func(p *api.Pod) { p.Spec.Containers[0].VolumeMounts[0].SubPath = "../etc" },
			[]fieldErr{{invalid, "spec.containers[0].volumeMounts[0].subPath"}}},
		{"probe without handler", func(p *api.Pod) { p.Spec.Containers[0].ReadinessProbe.HTTPGet = nil },
			[]fieldErr{{required, "spec.containers[0].readinessProbe"}}},
		{"probe with two handlers", func(p *api.Pod) {
			p.Spec.Containers[0].LivenessProbe.Exec = &api.ExecAction{Command: []string{"true"}}
		}, []fieldErr{{forbidden, "spec.containers[0].livenessProbe.tcpSocket"}}},
		{"liveness successThreshold", func(p *api.Pod) { p.Spec.Containers[0].LivenessProbe.SuccessThreshold = 3 },
			[]fieldErr{{invalid, "spec.containers[0].livenessProbe.successThreshold"}}},
		{"probe on unknown named port", func(p *api.Pod) { p.Spec.Containers[0].ReadinessProbe.HTTPGet.Port = api.FromString("HTTP") },
			[]fieldErr{{invalid, "spec.containers[0].readinessProbe.httpGet.port"}, {invalid, "spec.containers[0].readinessProbe.httpGet.port"}}},
		{"probe on init container", func(p *api.Pod) {
			p.Spec.InitContainers = []api.Container{{Name: "init", Image: "busybox", ReadinessProbe: p.Spec.Containers[0].ReadinessProbe}}
		}, []fieldErr{{forbidden, "spec.initContainers[0].readinessProbe"}}},
		{"env without name", func(p *api.Pod) { p.Spec.Containers[1].Env[0].Name = "" }, []fieldErr{{required, "spec.containers[1].env[0].name"}}},
		{"env with value and valueFrom", func(p *api.Pod) { p.Spec.Containers[1].Env[0].Value = "x" }, []fieldErr{{invalid, "spec.containers[1].env[0].valueFrom"}}},
		{"env from unknown field", func(p *api.Pod) { p.Spec.Containers[1].Env[0].ValueFrom.FieldRef.FieldPath = "spec.hostname" },
			[]fieldErr{{notSupported, "spec.containers[1].env[0].valueFrom.fieldRef.fieldPath"}}},
		{"toleration seconds without NoExecute", func(p *api.Pod) { p.Spec.Tolerations[0].Effect = api.TaintEffectNoSchedule },
			[]fieldErr{{invalid, "spec.tolerations[0].effect"}}},
		{"toleration bad effect", func(p *api.Pod) {
			p.Spec.Tolerations[0].Effect = "Evict"
			p.Spec.Tolerations[0].TolerationSeconds = nil
		},
			[]fieldErr{{notSupported, "spec.tolerations[0].effect"}}},
		{"activeDeadlineSeconds zero", func(p *api.Pod) { p.Spec.ActiveDeadlineSeconds = int64Ptr(0) }, []fieldErr{{invalid, "spec.activeDeadlineSeconds"}}},
		{"bad nodeSelector", func(p *api.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd fast"} }, []fieldErr{{invalid, "spec.nodeSelector"}}},
		{"node affinity by name", func(p *api.Pod) {
			p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
				NodeSelectorTerms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: "In", Values: []string{"node1"}}}}},
			}}}
		}, nil},
		{"node affinity without terms", func(p *api.Pod) {
			p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{}}}
		}, []fieldErr{{required, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"}}},
		{"pod affinity without topologyKey", func(p *api.Pod) {
			p.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{{}}}}
		}, []fieldErr{{required, "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey"}}},
		{"ephemeral containers on create", func(p *api.Pod) {
			p.Spec.EphemeralContainers = []api.EphemeralContainer{{Container: api.Container{Name: "debug", Image: "busybox"}}}
		}, []fieldErr{{forbidden, "spec.ephemeralContainers"}}},
		{"dnsPolicy None without config", func(p *api.Pod) { p.Spec.DNSPolicy = api.DNSNone }, []fieldErr{{required, "spec.dnsConfig"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := decode[*api.Pod](t, basePod)
			tt.mutate(p)
			expectFields(t, ValidateCreate(p), tt.want...)
		})
	}
}

func TestPodMessagesReadLikeUpstream(t *testing.T) {
	p := decode[*api.Pod](t, basePod)
	p.Spec.Containers[0].VolumeMounts[0].Name = "data"
	expectMessages(t, ValidateCreate(p), `spec.containers[0].volumeMounts[0].name: Not found: "data"`)

	p = decode[*api.Pod](t, basePod)
	p.Spec.RestartPolicy = "Sometimes"
	expectMessages(t, ValidateCreate(p), `spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`)

	p = decode[*api.Pod](t, basePod)
	p.Spec.Containers[0].Ports[0].ContainerPort = 65536
	expectMessages(t, ValidateCreate(p), `spec.containers[0].ports[0].containerPort: Invalid value: 65536: must be between 1 and 65535, inclusive`)
}

func TestValidatePodUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(p *api.Pod)
		want   []fieldErr
	}{
		{"labels", func(p *api.Pod) { p.Labels = map[string]string{"tier": "web"} }, nil},
		{"image", func(p *api.Pod) { p.Spec.Containers[0].Image = "nginx:1.28.0" }, nil},
		{"image removed", func(p *api.Pod) { p.Spec.Containers[0].Image = "" }, []fieldErr{{required, "spec.containers[0].image"}}},
		{"deadline set", func(p *api.Pod) { p.Spec.ActiveDeadlineSeconds = int64Ptr(60) }, nil},
		{"toleration added", func(p *api.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, api.Toleration{Key: "dedicated", Operator: api.TolerationOpExists})
		}, nil},
		{"tolerationSeconds changed", func(p *api.Pod) { p.Spec.Tolerations[0].TolerationSeconds = int64Ptr(60) }, nil},
		{"toleration removed", func(p *api.Pod) { p.Spec.Tolerations = nil }, []fieldErr{{forbidden, "spec.tolerations"}}},
		{"port changed", func(p *api.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 8080 }, []fieldErr{{forbidden, "spec"}}},
		{"container added", func(p *api.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "third", Image: "busybox"})
		}, []fieldErr{{forbidden, "spec.containers"}}},
		{"nodeName set by update", func(p *api.Pod) { p.Spec.NodeName = "node1" }, []fieldErr{{forbidden, "spec"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := asStored(decode[*api.Pod](t, basePod))
			p := asStored(old)
			tt.mutate(p)
			expectFields(t, ValidateUpdate(p, old), tt.want...)
		})
	}

	old := asStored(decode[*api.Pod](t, basePod))
	old.Spec.ActiveDeadlineSeconds = int64Ptr(60)
	p := asStored(old)
	p.Spec.ActiveDeadlineSeconds = int64Ptr(120)
	expectFields(t, ValidateUpdate(p, old), fieldErr{invalid, "spec.activeDeadlineSeconds"})
	p.Spec.ActiveDeadlineSeconds = nil
	expectFields(t, ValidateUpdate(p, old), fieldErr{invalid, "spec.activeDeadlineSeconds"})

	old = asStored(decode[*api.Pod](t, basePod))
	p = asStored(old)
	p.Spec.Containers[0].Ports[0].ContainerPort = 8080
	errs := ValidateUpdate(p, old)
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,") ||
		!strings.HasSuffix(errs[0].Error(), "\nchanged: spec.containers[0].ports[0].containerPort") {
		t.Errorf("unexpected errors:\n%s", describe(errs))
	}
}
