package lab

import (
	"context"
	"fmt"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// daemonSetLab is the seeds' nginx-ds: one pod on every node, and a
// rolling update of the DaemonSet's image node by node.
func daemonSetLab() *Lab {
	return &Lab{
		Name:  "daemonset",
		Title: Text{En: "DaemonSet nginx-ds: one pod per node", Zh: "DaemonSet nginx-ds：每个节点一个 Pod"},
		Intro: Text{
			En: "A DaemonSet runs one pod on every node that can take it — log collectors, node agents, kube-proxy. Its controller chooses the node itself, by setting the pod's node affinity; the scheduler only confirms it.",
			Zh: "DaemonSet 在每个可以运行它的节点上各运行一个 Pod（守护进程），例如日志收集、节点代理、kube-proxy。它的控制器自己选定节点（为 Pod 设置节点亲和性），调度器只是确认。",
		},
		Files: []string{"daemonset.yaml"},
		Steps: []Step{
			{
				Title: Text{En: "Create the DaemonSet", Zh: "创建 DaemonSet"},
				Do:    Text{En: "Apply the seed's nginx-ds and see one pod per node.", Zh: "应用种子笔记的 nginx-ds，看到每个节点上各有一个 Pod。"},
				Commands: []Command{
					{Line: "ctl apply -f {dir}/daemonset.yaml"},
					{Line: "ctl rollout status daemonset/nginx-ds"},
					{Line: "ctl get pods -l app=nginx -o wide"},
				},
				Check: func(ctx context.Context, env *Env) error { return wantDaemonSetImage(ctx, env.Client, "nginx:1.27.0") },
				Explain: Text{
					En: "The DaemonSet controller listed the nodes, kept those whose taints the pod tolerates (the control-plane node's NoSchedule taint keeps it out), and created one pod per node with a node affinity for that node; the scheduler bound each where the affinity allowed. `ctl why daemonset/nginx-ds` shows the per-node decision, `ctl queues` the daemonset controller's queue.",
					Zh: "DaemonSet 控制器列出所有节点，保留 Pod 能容忍其污点的节点（control-plane 节点的 NoSchedule 污点把它排除在外），为每个节点创建一个带该节点亲和性的 Pod；调度器按亲和性完成绑定。`ctl why daemonset/nginx-ds` 显示逐个节点的决策，`ctl queues` 显示 daemonset 控制器的队列。",
				},
				Hints: []Text{{En: "ctl apply -f {dir}/daemonset.yaml", Zh: "ctl apply -f {dir}/daemonset.yaml"}},
			},
			{
				Title: Text{En: "Update the image, node by node", Zh: "逐个节点更新镜像"},
				Do:    Text{En: "Change the image to nginx:1.28.0: the RollingUpdate strategy replaces one node's pod at a time.", Zh: "把镜像改成 nginx:1.28.0：RollingUpdate 策略一次只替换一个节点上的 Pod。"},
				Commands: []Command{
					{Line: "ctl set image daemonset/nginx-ds nginx=nginx:1.28.0"},
					{Line: "ctl rollout status daemonset/nginx-ds"},
					{Line: "ctl get pods -l app=nginx -o wide"},
				},
				Check: func(ctx context.Context, env *Env) error { return wantDaemonSetImage(ctx, env.Client, "nginx:1.28.0") },
				Explain: Text{
					En: "The template changed, so the DaemonSet controller recorded a new ControllerRevision and, with maxUnavailable 1, deleted one old pod, waited for its replacement to be ready on the same node, then went on to the next node. `ctl rollout history daemonset/nginx-ds` lists the revisions.",
					Zh: "模板变了，DaemonSet 控制器记录一个新的 ControllerRevision；在 maxUnavailable 为 1 的限制下，它删掉一个旧 Pod，等同一节点上的新 Pod 就绪后，再处理下一个节点。`ctl rollout history daemonset/nginx-ds` 列出各个版本。",
				},
				Hints: []Text{{En: "ctl set image daemonset/nginx-ds nginx=nginx:1.28.0 (the container is called nginx)", Zh: "ctl set image daemonset/nginx-ds nginx=nginx:1.28.0（容器名是 nginx）"}},
			},
		},
		Cleanup: []Object{{Resource: client.DaemonSetsResource, Namespace: "default", Name: "nginx-ds"}},
	}
}

// wantDaemonSetImage wants nginx-ds on image, on every node it should
// run on, every pod updated and ready.
func wantDaemonSetImage(ctx context.Context, c *client.Client, image string) error {
	ds, err := c.DaemonSets("default").Get(ctx, "nginx-ds", client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return unmet("daemonset nginx-ds does not exist", "DaemonSet nginx-ds 不存在")
	}
	if err != nil {
		return fmt.Errorf("get daemonset nginx-ds: %w", err)
	}
	if got := containerImage(ds.Spec.Template.Spec, "nginx"); got != image {
		return unmet("daemonset nginx-ds runs image %s; want %s", "DaemonSet nginx-ds 的镜像是 %s，期望 %s", got, image)
	}
	s := ds.Status
	if s.ObservedGeneration < ds.Generation || s.DesiredNumberScheduled == 0 ||
		s.UpdatedNumberScheduled != s.DesiredNumberScheduled || s.NumberReady != s.DesiredNumberScheduled || s.CurrentNumberScheduled != s.DesiredNumberScheduled {
		return unmet("daemonset nginx-ds: %d nodes wanted, %d updated, %d ready",
			"DaemonSet nginx-ds：应在 %d 个节点上运行，%d 个已更新，%d 个就绪",
			s.DesiredNumberScheduled, s.UpdatedNumberScheduled, s.NumberReady)
	}
	pods, err := livePods(ctx, c, "default", "app=nginx")
	if err != nil {
		return err
	}
	nodes := map[string]bool{}
	for _, p := range pods {
		if containerImage(p.Spec, "nginx") != image || nodes[p.Spec.NodeName] {
			return unmet("the old pods of nginx-ds are still going away", "nginx-ds 的旧 Pod 还在删除中")
		}
		nodes[p.Spec.NodeName] = true
	}
	return nil
}
