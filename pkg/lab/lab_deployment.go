package lab

import (
	"context"
	"fmt"

	apierrors "kplane/pkg/api/errors"

	"kplane/pkg/client"
)

// deploymentLab is the seeds' ng-dep: scale it, roll out a new image,
// and undo the rollout.
func deploymentLab() *Lab {
	return &Lab{
		Name:  "deployment",
		Title: Text{En: "Deployment ng-dep: scale, roll out, undo", Zh: "Deployment ng-dep：扩缩容、滚动更新、回滚"},
		Intro: Text{
			En: "A Deployment manages ReplicaSets: scaling changes the current ReplicaSet's replicas, a new pod template starts a rolling update to a new ReplicaSet, and undo rolls back to the previous one.",
			Zh: "Deployment 管理 ReplicaSet：扩缩容改的是当前 ReplicaSet 的副本数，修改 Pod 模板会触发滚动更新到一个新的 ReplicaSet，rollout undo 则回滚到上一个版本。",
		},
		Files: []string{"nginx-dep.yaml"},
		Steps: []Step{
			{
				Title: Text{En: "Create the Deployment", Zh: "创建 Deployment"},
				Do:    Text{En: "Create ng-dep (4 replicas) from the seed's YAML.", Zh: "用种子笔记的 YAML 创建 ng-dep（4 个副本）。"},
				Commands: []Command{
					{Line: "ctl apply -f {dir}/nginx-dep.yaml"},
					{Line: "ctl rollout status deployment/ng-dep"},
					{Line: "ctl get rs,pods -l dep=ng-dep-pod"},
				},
				Check: func(ctx context.Context, env *Env) error {
					return deploymentDone(ctx, env.Client, "default", "ng-dep", 4)
				},
				Explain: Text{
					En: "The Deployment controller hashed the pod template into a pod-template-hash, created the ReplicaSet ng-dep-<hash> with 4 replicas, and the ReplicaSet controller created the pods. `ctl trace deployment/ng-dep` follows the chain Deployment → ReplicaSet → Pods → scheduler → kubelet.",
					Zh: "Deployment 控制器对 Pod 模板计算出 pod-template-hash，创建 4 个副本的 ReplicaSet ng-dep-<hash>，再由 ReplicaSet 控制器创建 Pod。`ctl trace deployment/ng-dep` 可以沿着 Deployment → ReplicaSet → Pod → 调度器 → kubelet 这条链看下去。",
				},
				Hints: []Text{{En: "ctl apply -f {dir}/nginx-dep.yaml", Zh: "ctl apply -f {dir}/nginx-dep.yaml"}},
			},
			{
				Title: Text{En: "Scale to 3", Zh: "缩容到 3 个副本"},
				Do:    Text{En: "Scale ng-dep down to 3 replicas.", Zh: "把 ng-dep 缩容到 3 个副本。"},
				Commands: []Command{
					{Line: "ctl scale deployment ng-dep --replicas 3"},
					{Line: "ctl get pods -l dep=ng-dep-pod"},
				},
				Check: func(ctx context.Context, env *Env) error {
					return deploymentDone(ctx, env.Client, "default", "ng-dep", 3)
				},
				Explain: Text{
					En: "Scaling wrote spec.replicas through the scale subresource. The Deployment controller passed the new count on to its ReplicaSet; the ReplicaSet controller chose one pod to delete (not-ready and newer pods first). No new ReplicaSet: the template did not change. `ctl why deployment/ng-dep` shows the scaling decision.",
					Zh: "scale 通过 scale 子资源修改 spec.replicas。Deployment 控制器把新副本数传给它的 ReplicaSet，ReplicaSet 控制器挑一个 Pod 删除（优先未就绪的、较新的）。模板没变，所以没有新的 ReplicaSet。`ctl why deployment/ng-dep` 显示这次扩缩容的决策。",
				},
				Hints: []Text{{En: "ctl scale deployment ng-dep --replicas 3", Zh: "ctl scale deployment ng-dep --replicas 3"}},
			},
			{
				Title: Text{En: "Roll out a new image", Zh: "滚动更新到新镜像"},
				Do:    Text{En: "Change the container's image to nginx:1.27.0 and watch the rolling update.", Zh: "把容器镜像改成 nginx:1.27.0，观察滚动更新。"},
				Commands: []Command{
					{Line: "ctl set image deployment/ng-dep ng-c-dep=nginx:1.27.0"},
					{Line: "ctl rollout status deployment/ng-dep"},
					{Line: "ctl rollout history deployment/ng-dep"},
				},
				Check: func(ctx context.Context, env *Env) error {
					return wantDeploymentImage(ctx, env.Client, "nginx:1.27.0")
				},
				Explain: Text{
					En: "A new template means a new pod-template-hash: the Deployment controller created a second ReplicaSet and moved replicas over step by step within maxSurge (25 %) and maxUnavailable (25 %), scaling the new one up and the old one down as pods became ready. The old ReplicaSet stays, at 0 replicas: it is revision 1 in `ctl rollout history`. `ctl why deployment/ng-dep` shows each step's arithmetic.",
					Zh: "模板变了，pod-template-hash 也就变了：Deployment 控制器创建第二个 ReplicaSet，在 maxSurge（25%）和 maxUnavailable（25%）的限制内逐步转移副本——新 Pod 就绪一个，就扩一点新的、缩一点旧的。旧 ReplicaSet 保留下来，副本数为 0，就是 `ctl rollout history` 里的 revision 1。`ctl why deployment/ng-dep` 显示每一步的计算。",
				},
				Hints: []Text{
					{En: "ctl set image deployment/ng-dep ng-c-dep=nginx:1.27.0 (the container is called ng-c-dep)", Zh: "ctl set image deployment/ng-dep ng-c-dep=nginx:1.27.0（容器名是 ng-c-dep）"},
				},
			},
			{
				Title: Text{En: "Undo the rollout", Zh: "回滚"},
				Do:    Text{En: "Roll back to the previous revision.", Zh: "回滚到上一个版本。"},
				Commands: []Command{
					{Line: "ctl rollout undo deployment/ng-dep"},
					{Line: "ctl rollout status deployment/ng-dep"},
					{Line: "ctl get rs -l dep=ng-dep-pod"},
				},
				Check: func(ctx context.Context, env *Env) error {
					return wantDeploymentImage(ctx, env.Client, "nginx")
				},
				Explain: Text{
					En: "Undo copied the old ReplicaSet's template back into the Deployment. Its hash matches the old ReplicaSet, so the controller did not create a third one: it scaled the old ReplicaSet back up and the new one down, and the old revision number became the newest. `ctl rollout history deployment/ng-dep` shows it.",
					Zh: "undo 把旧 ReplicaSet 的模板复制回 Deployment。模板的 hash 与旧 ReplicaSet 一致，所以控制器不会再建第三个，而是把旧的 ReplicaSet 扩回去、把新的缩到 0，旧版本号变成最新的版本号。`ctl rollout history deployment/ng-dep` 可以看到。",
				},
				Hints: []Text{{En: "ctl rollout undo deployment/ng-dep", Zh: "ctl rollout undo deployment/ng-dep"}},
			},
		},
		Cleanup: []Object{{Resource: client.DeploymentsResource, Namespace: "default", Name: "ng-dep"}},
	}
}

// wantDeploymentImage wants ng-dep's template on image and rolled out to
// its 3 replicas.
func wantDeploymentImage(ctx context.Context, c *client.Client, image string) error {
	d, err := c.Deployments("default").Get(ctx, "ng-dep", client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return unmet("deployment ng-dep does not exist", "Deployment ng-dep 不存在")
	}
	if err != nil {
		return fmt.Errorf("get deployment ng-dep: %w", err)
	}
	if got := containerImage(d.Spec.Template.Spec, "ng-c-dep"); got != image {
		return unmet("deployment ng-dep runs image %s; want %s", "Deployment ng-dep 的镜像是 %s，期望 %s", got, image)
	}
	return deploymentDone(ctx, c, "default", "ng-dep", 3)
}
