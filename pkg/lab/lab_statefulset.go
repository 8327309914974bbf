package lab

import (
	"context"
	"fmt"
	"slices"

	"kplane/pkg/client"
)

// statefulSetLab is the seeds' nginx-ss: a StatefulSet with its headless
// Service, ordered pod names, and the DNS names the cluster DNS gives
// each pod.
func statefulSetLab() *Lab {
	return &Lab{
		Name:  "statefulset",
		Title: Text{En: "StatefulSet nginx-ss, its headless Service and DNS", Zh: "StatefulSet nginx-ss、Headless Service 与 DNS"},
		Intro: Text{
			En: "A StatefulSet gives each pod a stable name (nginx-ss-0, nginx-ss-1, …), created in order, and with a headless Service (clusterIP: None) a stable DNS name per pod: nginx-ss-0.nginx-ss.default.svc.cluster.local.",
			Zh: "StatefulSet 用于有状态服务：每个 Pod 有固定的名字（nginx-ss-0、nginx-ss-1……），按序号依次创建；配合 Headless Service（clusterIP: None），每个 Pod 还有固定的 DNS 名字：nginx-ss-0.nginx-ss.default.svc.cluster.local。",
		},
		Files: []string{"statefulset.yaml"},
		Steps: []Step{
			{
				Title: Text{En: "Create the StatefulSet and its headless Service", Zh: "创建 StatefulSet 和 Headless Service"},
				Do: Text{
					En: "Apply the seed's YAML (the StatefulSet and the Service nginx-ss) and watch the pods come up one after the other.",
					Zh: "应用种子笔记的 YAML（StatefulSet 和 Service nginx-ss），观察 Pod 按顺序一个接一个地启动。",
				},
				Commands: []Command{
					{Line: "ctl apply -f {dir}/statefulset.yaml"},
					{Line: "ctl rollout status statefulset/nginx-ss"},
					{Line: "ctl get pods -l app=nginx-ss -o wide"},
				},
				Check: func(ctx context.Context, env *Env) error {
					return wantStatefulSetPods(ctx, env.Client, 2)
				},
				Explain: Text{
					En: "The StatefulSet controller created nginx-ss-0 and waited for it to be Running and Ready before creating nginx-ss-1 (podManagementPolicy OrderedReady). The endpointslice controller then published both pods, with their hostnames, in an EndpointSlice of the Service nginx-ss. `ctl why statefulset/nginx-ss` shows the controller waiting for the lower ordinal; `ctl trace pod/nginx-ss-1` shows when it was created.",
					Zh: "StatefulSet 控制器先创建 nginx-ss-0，等它 Running 且 Ready 之后才创建 nginx-ss-1（podManagementPolicy 为 OrderedReady）。随后 endpointslice 控制器把两个 Pod 连同各自的 hostname 写进 Service nginx-ss 的 EndpointSlice。`ctl why statefulset/nginx-ss` 可以看到控制器在等较小序号的 Pod；`ctl trace pod/nginx-ss-1` 可以看到它何时被创建。",
				},
				Hints: []Text{
					{En: "ctl apply -f {dir}/statefulset.yaml", Zh: "ctl apply -f {dir}/statefulset.yaml"},
					{En: "ctl describe statefulset nginx-ss shows how many pods are ready; they start one at a time.", Zh: "ctl describe statefulset nginx-ss 显示就绪的 Pod 数；它们是一个一个启动的。"},
				},
			},
			{
				Title: Text{En: "Scale to 3 and ask the DNS", Zh: "扩容到 3 个并查询 DNS"},
				Do: Text{
					En: "Scale to 3 replicas: nginx-ss-2 appears, and with it a DNS name. Ask the cluster DNS with dig at the loopback address `ctl status` prints after \"dns\" (replace PORT).",
					Zh: "扩容到 3 个副本：出现 nginx-ss-2，也随之有了 DNS 名字。用 dig 查询集群 DNS，地址是 `ctl status` 在 “dns” 后面打印的回环地址（把 PORT 换成其端口）。",
				},
				Commands: []Command{
					{Line: "ctl scale statefulset nginx-ss --replicas 3"},
					{Line: "ctl rollout status statefulset/nginx-ss"},
					{Line: "ctl status"},
					{Line: "dig @127.0.0.1 -p PORT +short nginx-ss-2.nginx-ss.default.svc.cluster.local"},
					{Line: "dig @127.0.0.1 -p PORT +short nginx-ss.default.svc.cluster.local"},
				},
				Check: func(ctx context.Context, env *Env) error {
					if err := wantStatefulSetPods(ctx, env.Client, 3); err != nil {
						return err
					}
					return wantHeadlessEndpoints(ctx, env.Client, []string{"nginx-ss-0", "nginx-ss-1", "nginx-ss-2"})
				},
				Explain: Text{
					En: "The StatefulSet controller created the next ordinal, nginx-ss-2. The endpointslice controller added it, with hostname nginx-ss-2, to the Service's EndpointSlice; the cluster DNS watches Services and EndpointSlices, so a headless Service's name answers every ready pod's address, and <hostname>.nginx-ss one pod's. Nothing dials these addresses: in kplane pod IPs are labels.",
					Zh: "StatefulSet 控制器创建了下一个序号 nginx-ss-2。endpointslice 控制器把它连同 hostname nginx-ss-2 加进 Service 的 EndpointSlice；集群 DNS 监听 Service 和 EndpointSlice，所以 Headless Service 的名字解析为所有就绪 Pod 的地址，<hostname>.nginx-ss 解析为单个 Pod 的地址。这些地址不会被真正连接：在 kplane 里 Pod IP 只是标签。",
				},
				Hints: []Text{
					{En: "ctl scale statefulset nginx-ss --replicas 3", Zh: "ctl scale statefulset nginx-ss --replicas 3"},
					{En: "ctl get endpointslices -l kubernetes.io/service-name=nginx-ss -o yaml shows the hostnames the DNS answers.", Zh: "ctl get endpointslices -l kubernetes.io/service-name=nginx-ss -o yaml 可以看到 DNS 所用的 hostname。"},
				},
			},
		},
		Cleanup: []Object{
			{Resource: client.StatefulSetsResource, Namespace: "default", Name: "nginx-ss"},
			{Resource: client.ServicesResource, Namespace: "default", Name: "nginx-ss"},
		},
	}
}

// wantStatefulSetPods wants nginx-ss-0 … nginx-ss-(n-1) ready, and only them.
func wantStatefulSetPods(ctx context.Context, c *client.Client, n int) error {
	if err := wantReadyPods(ctx, c, "default", "app=nginx-ss", n); err != nil {
		return err
	}
	pods, err := readyPods(ctx, c, "default", "app=nginx-ss")
	if err != nil {
		return err
	}
	for _, p := range pods {
		if !slices.Contains(ordinalNames("nginx-ss", n), p.Name) {
			return unmet("pod %s is not one of nginx-ss-0 … nginx-ss-%d", "Pod %s 不在 nginx-ss-0 … nginx-ss-%d 之中", p.Name, n-1)
		}
	}
	return nil
}

// ordinalNames are a StatefulSet's first n pod names.
func ordinalNames(set string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", set, i)
	}
	return names
}

// wantHeadlessEndpoints wants the Service nginx-ss's EndpointSlices to
// hold a ready endpoint for each hostname: what the DNS answers from.
func wantHeadlessEndpoints(ctx context.Context, c *client.Client, hostnames []string) error {
	endpointSlices, err := c.EndpointSlices("default").List(ctx, client.ListOptions{LabelSelector: "kubernetes.io/service-name=nginx-ss"})
	if err != nil {
		return fmt.Errorf("list endpointslices of service nginx-ss: %w", err)
	}
	var ready []string
	for _, s := range endpointSlices.Items {
		for _, e := range s.Endpoints {
			if e.Hostname != nil && e.Conditions.Ready != nil && *e.Conditions.Ready {
				ready = append(ready, *e.Hostname)
			}
		}
	}
	for _, h := range hostnames {
		if !slices.Contains(ready, h) {
			return unmet("service nginx-ss has no ready endpoint for %s yet (ready: %v)",
				"Service nginx-ss 还没有 %s 的就绪端点（已就绪：%v）", h, ready)
		}
	}
	return nil
}
