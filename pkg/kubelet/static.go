package kubelet

// This file runs static pods: pods defined by manifest files in
// --pod-manifest-path rather than by the API, which is how kubeadm runs the
// control plane itself. The kubelet rereads the directory every
// FileCheckFrequency (upstream's config/file.go), runs each pod it finds,
// and publishes a mirror pod for each in the API (upstream's
// mirror_client.go): a read-only reflection named <name>-<node>, with the
// annotation kubernetes.io/config.mirror and the Node as its owner, so
// `kubectl get pods` shows static pods too. Deleting a mirror pod does not
// stop the static pod (the kubelet puts the mirror back); removing the file
// does, and deletes the mirror.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/informer"
)

// Annotations the kubelet puts on static and mirror pods, as upstream.
const (
	// AnnotationConfigSource says where a pod came from: "file" for a
	// static pod.
	AnnotationConfigSource = "kubernetes.io/config.source"
	// AnnotationConfigHash identifies a static pod's content; it is also
	// its UID.
	AnnotationConfigHash = "kubernetes.io/config.hash"
	// AnnotationConfigMirror marks a mirror pod; its value is the static
	// pod's hash.
	AnnotationConfigMirror = "kubernetes.io/config.mirror"
	// AnnotationConfigSeen is when the kubelet first read the manifest.
	AnnotationConfigSeen = "kubernetes.io/config.seen"
)

// isStaticPod reports whether pod came from a manifest file.
func isStaticPod(pod *api.Pod) bool { return pod.Annotations[AnnotationConfigSource] == "file" }

// isMirrorPod reports whether pod is a mirror pod.
func isMirrorPod(pod *api.Pod) bool {
	_, ok := pod.Annotations[AnnotationConfigMirror]
	return ok
}

// isMirrorPodOf reports whether mirror reflects static's current content.
func isMirrorPodOf(mirror, static *api.Pod) bool {
	return isMirrorPod(mirror) && mirror.Annotations[AnnotationConfigMirror] == static.Annotations[AnnotationConfigHash]
}

// staticPods keeps a node's static pods in step with its manifest
// directory, and their mirror pods in step with them.
type staticPods struct {
	k   *Kubelet
	dir string
	// kick asks for an early pass (a mirror pod changed in the API).
	kick chan struct{}

	mu sync.Mutex
	// pods holds the static pods read from the directory, by
	// "namespace/name" (the mirror pod's key).
	pods map[string]*api.Pod
	// problems remembers manifests that failed to load, so each problem is
	// logged once rather than every pass.
	problems map[string]string
}

func newStaticPods(k *Kubelet, dir string) *staticPods {
	return &staticPods{k: k, dir: dir, kick: make(chan struct{}, 1),
		pods: map[string]*api.Pod{}, problems: map[string]string{}}
}

// run rereads the directory and syncs the mirror pods every
// FileCheckFrequency, or sooner when kicked, until ctx ends.
func (s *staticPods) run(ctx context.Context) {
	ticker := s.k.clock.NewTicker(s.k.opts.FileCheckFrequency)
	defer ticker.Stop()
	for {
		s.scan()
		s.syncMirrors(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
		case <-s.kick:
		}
	}
}

// poke asks for an early pass.
func (s *staticPods) poke() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// mirrorChanged is called by the pod informer's handler for a mirror pod:
// it may need replacing, and its static pod's status may now have
// somewhere to go.
func (s *staticPods) mirrorChanged(mirror *api.Pod) {
	s.mu.Lock()
	static := s.pods[mirror.Namespace+"/"+mirror.Name]
	s.mu.Unlock()
	if static != nil {
		s.k.status.Resync(static.UID)
	}
	s.poke()
}

// scan reads the manifest directory and starts, replaces or stops static
// pods to match it.
func (s *staticPods) scan() {
	found := map[string]*api.Pod{}
	entries, err := os.ReadDir(s.dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		s.report(s.dir, err.Error())
	}
	for _, entry := range entries {
		if entry.IsDir() || strings.HasPrefix(entry.Name(), ".") {
			continue
		}
		path := filepath.Join(s.dir, entry.Name())
		pod, err := readManifest(path, s.k.nodeName, s.k.clock.Now())
		if err != nil {
			s.report(path, err.Error())
			continue
		}
		key := pod.Namespace + "/" + pod.Name
		if _, dup := found[key]; dup {
			s.report(path, fmt.Sprintf("another manifest already defines pod %s", key))
			continue
		}
		delete(s.problems, path)
		found[key] = pod
	}

	s.mu.Lock()
	old := s.pods
	var added, removed []*api.Pod
	for key, pod := range found {
		prev := old[key]
		if prev != nil && prev.UID == pod.UID {
			found[key] = prev // unchanged: keep the object the worker has
			continue
		}
		if prev != nil {
			removed = append(removed, prev)
		}
		added = append(added, pod)
	}
	for key, prev := range old {
		if _, ok := found[key]; !ok {
			removed = append(removed, prev)
		}
	}
	s.pods = found
	s.mu.Unlock()

	for _, pod := range removed {
		s.k.log.Info("static pod manifest removed or changed, stopping the pod", "pod", pod.Namespace+"/"+pod.Name)
		s.k.removePod(pod.UID)
	}
	for _, pod := range added {
		s.k.log.Info("starting static pod", "pod", pod.Namespace+"/"+pod.Name)
		s.k.addStaticPod(s.withMirrorStatus(pod))
	}
}

// report logs a manifest problem once.
func (s *staticPods) report(path, problem string) {
	if s.problems[path] == problem {
		return
	}
	s.problems[path] = problem
	s.k.log.Warn("could not process manifest file", "path", path, "err", problem)
}

// withMirrorStatus gives a static pod read from its file the status its
// mirror pod shows, if the mirror reflects the same content: this is how a
// restarted kubelet adopts its static pods' containers instead of starting
// them again.
func (s *staticPods) withMirrorStatus(pod *api.Pod) *api.Pod {
	mirror, err := s.k.pods.Namespace(pod.Namespace).Get(pod.Name)
	if err == nil && isMirrorPodOf(mirror, pod) {
		pod.Status = *api.DeepCopyValue(&mirror.Status)
	}
	return pod
}

// syncMirrors creates missing mirror pods, replaces stale ones (different
// content, or being deleted by a user), and deletes mirror pods whose
// static pod is gone.
func (s *staticPods) syncMirrors(ctx context.Context) {
	select {
	case <-s.k.registered:
	default:
		return // mirror pods point at the Node, which is not there yet
	}
	s.mu.Lock()
	want := make([]*api.Pod, 0, len(s.pods))
	for _, pod := range s.pods {
		want = append(want, pod)
	}
	s.mu.Unlock()
	sort.Slice(want, func(i, j int) bool { return want[i].Name < want[j].Name })

	for _, static := range want {
		mirror, err := s.k.pods.Namespace(static.Namespace).Get(static.Name)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			continue
		case !isMirrorPod(mirror):
			s.k.log.Warn("a pod that is not a mirror pod has the static pod's name", "pod", static.Namespace+"/"+static.Name)
			continue
		case isMirrorPodOf(mirror, static) && mirror.DeletionTimestamp == nil:
			continue
		default:
			if err := s.deleteMirror(ctx, mirror); err != nil {
				s.k.log.Warn("could not delete stale mirror pod", "pod", static.Namespace+"/"+static.Name, "err", err)
				continue
			}
		}
		if err := s.createMirror(ctx, static); err != nil && ctx.Err() == nil {
			s.k.log.Warn("could not create mirror pod", "pod", static.Namespace+"/"+static.Name, "err", err)
		}
	}

	onNode, _ := s.k.podIndexer.ByIndex(informer.NodeNameIndex, s.k.nodeName)
	for _, obj := range onNode {
		mirror, ok := obj.(*api.Pod)
		if !ok || !isMirrorPod(mirror) {
			continue
		}
		s.mu.Lock()
		_, wanted := s.pods[mirror.Namespace+"/"+mirror.Name]
		s.mu.Unlock()
		if !wanted {
			s.k.log.Info("deleting orphaned mirror pod", "pod", mirror.Namespace+"/"+mirror.Name)
			if err := s.deleteMirror(ctx, mirror); err != nil {
				s.k.log.Warn("could not delete orphaned mirror pod", "pod", mirror.Namespace+"/"+mirror.Name, "err", err)
			}
		}
	}
}

// createMirror creates static's mirror pod: the same metadata and spec,
// the config.mirror annotation, and the Node as controlling owner.
func (s *staticPods) createMirror(ctx context.Context, static *api.Pod) error {
	mirror := &api.Pod{
		ObjectMeta: api.ObjectMeta{
			Name:        static.Name,
			Namespace:   static.Namespace,
			Labels:      api.DeepCopyValue(static.Labels),
			Annotations: api.DeepCopyValue(static.Annotations),
		},
		Spec: *api.DeepCopyValue(&static.Spec),
	}
	if mirror.Annotations == nil {
		mirror.Annotations = map[string]string{}
	}
	mirror.Annotations[AnnotationConfigMirror] = static.Annotations[AnnotationConfigHash]
	controller := true
	s.k.mu.Lock()
	nodeUID := s.k.nodeUID
	s.k.mu.Unlock()
	mirror.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: s.k.nodeName, UID: nodeUID, Controller: &controller}}
	if _, err := s.k.client.Pods(static.Namespace).Create(ctx, mirror, client.CreateOptions{}); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil // the informer has not shown it to us yet
		}
		return fmt.Errorf("create mirror pod %s/%s: %w", static.Namespace, static.Name, err)
	}
	s.k.log.Info("created mirror pod", "pod", static.Namespace+"/"+static.Name)
	s.k.status.Resync(static.UID)
	return nil
}

// deleteMirror deletes a mirror pod at once, as upstream's
// DeleteMirrorPod does (grace period 0, UID precondition).
func (s *staticPods) deleteMirror(ctx context.Context, mirror *api.Pod) error {
	zero := int64(0)
	uid := mirror.UID
	err := s.k.client.Pods(mirror.Namespace).Delete(ctx, mirror.Name, client.DeleteOptions{
		GracePeriodSeconds: &zero, Preconditions: &api.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete mirror pod %s/%s: %w", mirror.Namespace, mirror.Name, err)
	}
	return nil
}

// readManifest loads a static pod from a YAML or JSON file and gives it
// what upstream's kubelet gives a static pod: the name <name>-<node>, the
// namespace "default" when it names none, the node, a UID hashed from its
// content, node and file (so an unchanged file keeps its pod across
// kubelet restarts), the config annotations (config.seen: seen), API
// defaults, and a toleration of every NoExecute taint.
func readManifest(path, nodeName string, seen time.Time) (*api.Pod, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	jsonData, err := manifestJSON(data)
	if err != nil {
		return nil, fmt.Errorf("parse manifest: %w", err)
	}
	pod := &api.Pod{}
	if err := json.Unmarshal(jsonData, pod); err != nil {
		return nil, fmt.Errorf("decode pod: %w", err)
	}
	if pod.Kind != "Pod" || (pod.APIVersion != "" && pod.APIVersion != "v1") {
		return nil, fmt.Errorf("want a v1 Pod, got %s %s", pod.APIVersion, pod.Kind)
	}
	if pod.Name == "" {
		return nil, errors.New("the pod has no metadata.name")
	}
	if len(pod.Spec.Containers) == 0 {
		return nil, errors.New("the pod has no containers")
	}
	canonical, _ := json.Marshal(pod)
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\nhost:%s\nfile:%s", canonical, nodeName, path)))
	hash := hex.EncodeToString(sum[:16])

	if pod.Namespace == "" {
		pod.Namespace = "default"
	}
	pod.Name = pod.Name + "-" + strings.ToLower(nodeName)
	pod.UID = hash
	pod.Spec.NodeName = nodeName
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[AnnotationConfigHash] = hash
	pod.Annotations[AnnotationConfigSource] = "file"
	pod.Annotations[AnnotationConfigSeen] = seen.UTC().Format(time.RFC3339Nano)
	api.SetDefaults(pod)
	pod.Spec.Tolerations = append(pod.Spec.Tolerations, api.Toleration{Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute})
	pod.Status = api.PodStatus{}
	return pod, nil
}

// manifestJSON converts a YAML (or JSON, which is YAML) manifest to JSON.
// Only the first document of a multi-document file is read, as upstream.
func manifestJSON(data []byte) ([]byte, error) {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, errors.New("the manifest is not a YAML mapping")
	}
	return json.Marshal(doc)
}
