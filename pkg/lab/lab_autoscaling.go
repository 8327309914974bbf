package lab

import (
	"context"
	"fmt"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// autoscalingLab is the horizontal pod autoscaler under kplane's
// simulated load (`ctl load`), with the virtual clock moving time on.
func autoscalingLab() *Lab {
	return &Lab{
		Name:  "autoscaling",
		Title: Text{En: "HorizontalPodAutoscaler under load", Zh: "负载下的 HorizontalPodAutoscaler（HPA）"},
		Intro: Text{
			En: "The horizontal pod autoscaler compares the pods' CPU use with their request and scales the Deployment toward the target (50 %). kplane's pods use what `ctl load` says. Start the cluster with `ctl up --virtual-clock` so that `ctl time advance` skips the waits; without it, leave out the advance and wait about 30 s instead.",
			Zh: "HPA 控制器把 Pod 的 CPU 用量和它的 request 相比较，把 Deployment 的副本数向目标（50%）调整。kplane 中 Pod 的用量由 `ctl load` 设定。请用 `ctl up --virtual-clock` 启动集群，这样 `ctl time advance` 可以跳过等待；否则省略 advance，改为等待约 30 秒。",
		},
		Files: []string{"hpa-web.yaml"},
		Steps: []Step{
			{
				Title: Text{En: "A Deployment and its autoscaler", Zh: "创建 Deployment 及其 HPA"},
				Do:    Text{En: "Apply web (2 pods asking for 100m CPU each) and the autoscaler web (2 to 6 replicas, 50 % CPU).", Zh: "应用 web（2 个 Pod，各请求 100m CPU）和 HPA web（2 到 6 个副本，目标 CPU 50%）。"},
				Commands: []Command{
					{Line: "ctl apply -f {dir}/hpa-web.yaml"},
					{Line: "ctl rollout status deployment/web"},
					{Line: "ctl get hpa web"},
				},
				Check: func(ctx context.Context, env *Env) error {
					if _, err := env.Client.HorizontalPodAutoscalers("default").Get(ctx, "web", client.GetOptions{}); apierrors.IsNotFound(err) {
						return unmet("horizontalpodautoscaler web does not exist", "HPA web 不存在")
					} else if err != nil {
						return fmt.Errorf("get horizontalpodautoscaler web: %w", err)
					}
					return deploymentDone(ctx, env.Client, "default", "web", 2)
				},
				Explain: Text{
					En: "The pods idle at 1m CPU. metrics-server scrapes the kubelets every 15 s; every 15 s the autoscaler controller reads the pods' metrics through the aggregated metrics.k8s.io API and proposes a replica count, here held at minReplicas 2.",
					Zh: "Pod 空闲时只用 1m CPU。metrics-server 每 15 秒从 kubelet 抓取一次指标；HPA 控制器每 15 秒通过聚合的 metrics.k8s.io API 读取 Pod 指标并计算副本数，此时被 minReplicas 限定为 2。",
				},
				Hints: []Text{{En: "ctl apply -f {dir}/hpa-web.yaml", Zh: "ctl apply -f {dir}/hpa-web.yaml"}},
			},
			{
				Title: Text{En: "Load the pods", Zh: "给 Pod 加负载"},
				Do:    Text{En: "Make every pod of web use 150m, move the clock on, and watch the autoscaler scale up.", Zh: "让 web 的每个 Pod 使用 150m CPU，把时钟向前拨，观察 HPA 扩容。"},
				Commands: []Command{
					{Line: "ctl load deployment/web --cpu 150m --noise 0"},
					{Line: "ctl time advance 30s", Again: true},
					{Line: "ctl get hpa web"},
				},
				Check: func(ctx context.Context, env *Env) error {
					d, err := env.Client.Deployments("default").Get(ctx, "web", client.GetOptions{})
					if apierrors.IsNotFound(err) {
						return unmet("deployment web does not exist", "Deployment web 不存在")
					}
					if err != nil {
						return fmt.Errorf("get deployment web: %w", err)
					}
					if got := derefInt32(d.Spec.Replicas); got <= 2 {
						return unmet("deployment web still wants %d replicas; the autoscaler has not scaled it up yet",
							"Deployment web 仍是 %d 个副本；HPA 还没有扩容", got)
					}
					return nil
				},
				Explain: Text{
					En: "CPU is a rate, so metrics-server needs two scrapes to see 150m. Then the autoscaler computed ceil(2 × 150 / 50) = 6, limited the first step to 4 (a scale-up may at most double, or add 4 pods), and wrote replicas through the Deployment's scale subresource: SuccessfulRescale in `ctl describe hpa web`, the arithmetic in `ctl why horizontalpodautoscaler/web`. The new pods inherit the load, so it goes on up to maxReplicas.",
					Zh: "CPU 是一个速率，所以 metrics-server 需要两次抓取才能看到 150m。随后 HPA 计算 ceil(2 × 150 / 50) = 6，并把第一步限制为 4（一次扩容最多翻倍或增加 4 个 Pod），通过 Deployment 的 scale 子资源写入副本数：`ctl describe hpa web` 中有 SuccessfulRescale 事件，`ctl why horizontalpodautoscaler/web` 中有计算过程。新 Pod 会继承负载，所以会继续扩到 maxReplicas。",
				},
				Hints: []Text{
					{En: "ctl load deployment/web --cpu 150m --noise 0, then ctl time advance 30s", Zh: "先 ctl load deployment/web --cpu 150m --noise 0，再 ctl time advance 30s"},
					{En: "Two scrapes and a sync must pass: run ctl time advance 30s once more (or wait 30 s on a cluster without --virtual-clock).", Zh: "需要经过两次抓取和一次同步：再执行一次 ctl time advance 30s（没有 --virtual-clock 的集群则再等 30 秒）。"},
				},
			},
		},
		Cleanup: []Object{
			{Resource: client.HorizontalPodAutoscalersResource, Namespace: "default", Name: "web"},
			{Resource: client.DeploymentsResource, Namespace: "default", Name: "web"},
		},
	}
}
