package lab

// The small readings of the cluster the labs' checks are made of. Each
// returns nil when the state holds and an *Unmet saying what it saw when
// it does not, so a failing check tells the student where things stand.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
)

// livePods lists the pods matching selector in namespace that are not
// being deleted.
func livePods(ctx context.Context, c *client.Client, namespace, selector string) ([]*api.Pod, error) {
	list, err := c.Pods(namespace).List(ctx, client.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("list pods -l %s: %w", selector, err)
	}
	var live []*api.Pod
	for _, pod := range list.Items {
		if pod.DeletionTimestamp == nil {
			live = append(live, pod)
		}
	}
	return live, nil
}

// readyPods is livePods narrowed to the pods whose Ready condition is True.
func readyPods(ctx context.Context, c *client.Client, namespace, selector string) ([]*api.Pod, error) {
	live, err := livePods(ctx, c, namespace, selector)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(live, func(p *api.Pod) bool { return !controllerutil.IsPodReady(p) }), nil
}

// wantReadyPods checks that exactly want pods match selector and are ready.
func wantReadyPods(ctx context.Context, c *client.Client, namespace, selector string, want int) error {
	live, err := livePods(ctx, c, namespace, selector)
	if err != nil {
		return err
	}
	ready, err := readyPods(ctx, c, namespace, selector)
	if err != nil {
		return err
	}
	if len(live) != want || len(ready) != want {
		return unmet("%[1]d pods match %[3]s in %[4]s, %[2]d of them ready; want %[5]d ready",
			"%[4]s 中有 %[1]d 个 Pod 匹配 %[3]s，其中 %[2]d 个就绪；期望 %[5]d 个就绪",
			len(live), len(ready), selector, namespace, want)
	}
	return nil
}

// deploymentDone checks that the Deployment has rolled out replicas pods
// of its current template: observed, all updated, all ready, no old pods.
func deploymentDone(ctx context.Context, c *client.Client, namespace, name string, replicas int32) error {
	d, err := c.Deployments(namespace).Get(ctx, name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return unmet("deployment %s does not exist yet", "Deployment %s 还不存在", name)
	}
	if err != nil {
		return fmt.Errorf("get deployment %s: %w", name, err)
	}
	s := d.Status
	if d.Spec.Replicas == nil || *d.Spec.Replicas != replicas {
		return unmet("deployment %s wants %d replicas; the step wants %d",
			"Deployment %s 的期望副本数是 %d，本步骤要求 %d", name, derefInt32(d.Spec.Replicas), replicas)
	}
	if s.ObservedGeneration < d.Generation || s.UpdatedReplicas != replicas || s.ReadyReplicas != replicas || s.Replicas != replicas {
		return unmet("deployment %s: %d pods, %d updated, %d ready (generation %d observed %d); want %d of each",
			"Deployment %s：%d 个 Pod，%d 个已更新，%d 个就绪（generation %d，已观察到 %d）；每项都应为 %d",
			name, s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, d.Generation, s.ObservedGeneration, replicas)
	}
	return nil
}

// absent checks that the named object no longer exists.
func absent(ctx context.Context, c *client.Client, res client.Resource, namespace, name string) error {
	_, err := c.Dynamic(res).Namespace(namespace).Get(ctx, name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get %s %s: %w", res.Resource, name, err)
	}
	return unmet("%s %s still exists", "%s %s 仍然存在", res.Resource, name)
}

// containerImage is the image of the named container of a pod template.
func containerImage(spec api.PodSpec, container string) string {
	for _, c := range spec.Containers {
		if c.Name == container {
			return c.Image
		}
	}
	return ""
}

// podUIDs lists the pods' UIDs, joined with commas, for the memo.
func podUIDs(pods []*api.Pod) string {
	uids := make([]string, 0, len(pods))
	for _, p := range pods {
		uids = append(uids, string(p.UID))
	}
	slices.Sort(uids)
	return strings.Join(uids, ",")
}

// derefInt32 reads an optional count (0 when unset).
func derefInt32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
