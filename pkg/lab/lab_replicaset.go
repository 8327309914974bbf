package lab

import (
	"context"
	"slices"
	"strings"

	"kplane/pkg/client"
)

// replicaSetLab is the seeds' ng-rs: three replicas, and the ReplicaSet
// controller replacing the pods a student deletes.
func replicaSetLab() *Lab {
	const selector = "replicaset=test"
	return &Lab{
		Name:  "replicaset",
		Title: Text{En: "ReplicaSet ng-rs replaces deleted pods", Zh: "ReplicaSet ng-rs 补回被删除的 Pod"},
		Intro: Text{
			En: "A ReplicaSet keeps a number of pods matching its selector alive. Delete its pods and the ReplicaSet controller creates new ones: the desired state (replicas: 3) wins over the actual state.",
			Zh: "ReplicaSet 维持一组匹配其标签选择器的 Pod 副本。删掉它的 Pod，ReplicaSet 控制器会创建新的：调谐循环让实际状态回到期望状态（replicas: 3）。",
		},
		Files: []string{"nginx-rs.yaml"},
		Steps: []Step{
			{
				Title: Text{En: "Create the ReplicaSet", Zh: "创建 ReplicaSet"},
				Do: Text{
					En: "Create ng-rs from the seed's YAML and list its three pods.",
					Zh: "用种子笔记的 YAML 创建 ng-rs，列出它的 3 个 Pod。",
				},
				Commands: []Command{
					{Line: "ctl apply -f {dir}/nginx-rs.yaml"},
					{Line: "ctl get pods -l replicaset=test -o wide"},
				},
				Check: func(ctx context.Context, env *Env) error {
					if err := wantReadyPods(ctx, env.Client, "default", selector, 3); err != nil {
						return err
					}
					pods, err := readyPods(ctx, env.Client, "default", selector)
					if err != nil {
						return err
					}
					env.Memo["replicaset.pods"] = podUIDs(pods)
					return nil
				},
				Explain: Text{
					En: "The ReplicaSet controller counted 0 pods matching replicaset=test, wanted 3, and created 3 with an ownerReference to ng-rs; the scheduler bound them and the kubelets started them. `ctl why replicaset/ng-rs` shows that decision, `ctl trace replicaset/ng-rs` its path through the components.",
					Zh: "ReplicaSet 控制器数到匹配 replicaset=test 的 Pod 有 0 个、期望 3 个，于是创建了 3 个 Pod，并在 ownerReferences 中指向 ng-rs；调度器完成绑定，kubelet 把它们运行起来。`ctl why replicaset/ng-rs` 显示这次决策，`ctl trace replicaset/ng-rs` 显示它经过各个组件的路径。",
				},
				Hints: []Text{
					{En: "ctl apply -f {dir}/nginx-rs.yaml", Zh: "ctl apply -f {dir}/nginx-rs.yaml"},
				},
			},
			{
				Title: Text{En: "Delete the pods", Zh: "删除 Pod"},
				Do: Text{
					En: "Delete every pod of ng-rs, then list the pods again: new names, same count.",
					Zh: "删除 ng-rs 的所有 Pod，再列一次：名字变了，数量没变。",
				},
				Commands: []Command{
					{Line: "ctl delete pods -l replicaset=test"},
					{Line: "ctl get pods -l replicaset=test"},
				},
				Check: func(ctx context.Context, env *Env) error {
					pods, err := livePods(ctx, env.Client, "default", selector)
					if err != nil {
						return err
					}
					old := strings.Split(env.Memo["replicaset.pods"], ",")
					for _, p := range pods {
						if slices.Contains(old, string(p.UID)) {
							return unmet("pod %s from the first step is still there", "第一步的 Pod %s 还在", p.Name)
						}
					}
					return wantReadyPods(ctx, env.Client, "default", selector, 3)
				},
				Explain: Text{
					En: "Each deletion reached the ReplicaSet controller as a watch event through its pod informer; it looked up the pod's owner, queued default/ng-rs, and its sync found fewer pods than replicas and created the difference. `ctl queues` shows the replicaset controller's queue, `ctl why replicaset/ng-rs` the count it acted on.",
					Zh: "每次删除都以 watch 事件的形式经 Pod informer 到达 ReplicaSet 控制器；它根据 Pod 的属主把 default/ng-rs 放入工作队列，同步时发现 Pod 数少于副本数，就补建差额。`ctl queues` 显示 replicaset 控制器的队列，`ctl why replicaset/ng-rs` 显示它依据的计数。",
				},
				Hints: []Text{
					{En: "Delete the pods by their label: ctl delete pods -l replicaset=test", Zh: "按标签删除 Pod：ctl delete pods -l replicaset=test"},
				},
			},
		},
		Cleanup: []Object{{Resource: client.ReplicaSetsResource, Namespace: "default", Name: "ng-rs"}},
	}
}
