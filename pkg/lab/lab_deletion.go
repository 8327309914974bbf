package lab

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// deletionLab is cascading and orphan deletion on the seeds' ng-rs:
// orphan the pods, let a new ReplicaSet adopt them, then delete it with
// its pods.
func deletionLab() *Lab {
	const selector = "replicaset=test"
	return &Lab{
		Name:  "deletion",
		Title: Text{En: "Cascading and orphan deletion", Zh: "级联删除与孤儿删除"},
		Intro: Text{
			En: "Deleting an owner normally deletes its dependents too (cascading deletion, done by the garbage collector). With --cascade=orphan the dependents stay, their ownerReferences removed, and a new owner with a matching selector adopts them.",
			Zh: "删除属主时通常会连带删除它的从属对象（级联删除，由垃圾回收器完成）。使用 --cascade=orphan 时，从属对象会保留下来（孤儿），它们的 ownerReferences 被移除；之后一个选择器匹配的新属主会收养它们。",
		},
		Files: []string{"nginx-rs.yaml"},
		Steps: []Step{
			{
				Title:    Text{En: "Create the ReplicaSet", Zh: "创建 ReplicaSet"},
				Do:       Text{En: "Create ng-rs and its 3 pods.", Zh: "创建 ng-rs 及其 3 个 Pod。"},
				Commands: []Command{{Line: "ctl apply -f {dir}/nginx-rs.yaml"}, {Line: "ctl get pods -l replicaset=test"}},
				Check: func(ctx context.Context, env *Env) error {
					if err := wantReadyPods(ctx, env.Client, "default", selector, 3); err != nil {
						return err
					}
					pods, err := readyPods(ctx, env.Client, "default", selector)
					if err != nil {
						return err
					}
					env.Memo["deletion.pods"] = podUIDs(pods)
					return nil
				},
				Explain: Text{
					En: "Each pod carries an ownerReference to ng-rs with controller: true. That reference, not the label, is what the garbage collector follows; `ctl get pod <name> -o yaml` shows it under metadata.ownerReferences.",
					Zh: "每个 Pod 都带有指向 ng-rs 的 ownerReference（controller: true）。垃圾回收器依据的是这个引用，而不是标签；`ctl get pod <名字> -o yaml` 可以在 metadata.ownerReferences 下看到它。",
				},
				Hints: []Text{{En: "ctl apply -f {dir}/nginx-rs.yaml", Zh: "ctl apply -f {dir}/nginx-rs.yaml"}},
			},
			{
				Title:    Text{En: "Delete the ReplicaSet, orphaning its pods", Zh: "删除 ReplicaSet，保留孤儿 Pod"},
				Do:       Text{En: "Delete ng-rs with --cascade=orphan: the pods stay.", Zh: "用 --cascade=orphan 删除 ng-rs：Pod 会保留下来。"},
				Commands: []Command{{Line: "ctl delete replicaset ng-rs --cascade=orphan"}, {Line: "ctl get pods -l replicaset=test"}},
				Check: func(ctx context.Context, env *Env) error {
					if err := absent(ctx, env.Client, client.ReplicaSetsResource, "default", "ng-rs"); err != nil {
						return err
					}
					return wantOriginalPods(ctx, env, selector, "")
				},
				Explain: Text{
					En: "The delete carried propagationPolicy Orphan: the apiserver put the orphan finalizer on ng-rs, the garbage collector removed the ownerReferences from its pods, then the finalizer, and only then was ng-rs deleted. The pods run on, owned by nobody.",
					Zh: "这次删除带有 propagationPolicy: Orphan：apiserver 给 ng-rs 加上 orphan finalizer，垃圾回收器先移除 Pod 上的 ownerReferences，再移除该 finalizer，ng-rs 这才真正被删除。Pod 继续运行，不再属于任何属主。",
				},
				Hints: []Text{{En: "ctl delete replicaset ng-rs --cascade=orphan", Zh: "ctl delete replicaset ng-rs --cascade=orphan"}},
			},
			{
				Title:    Text{En: "Let a new ReplicaSet adopt them", Zh: "让新的 ReplicaSet 收养它们"},
				Do:       Text{En: "Create ng-rs again: it adopts the 3 orphans instead of creating pods.", Zh: "再次创建 ng-rs：它会收养这 3 个孤儿 Pod，而不是新建 Pod。"},
				Commands: []Command{{Line: "ctl apply -f {dir}/nginx-rs.yaml"}, {Line: "ctl get pods -l replicaset=test"}},
				Check: func(ctx context.Context, env *Env) error {
					rs, err := env.Client.ReplicaSets("default").Get(ctx, "ng-rs", client.GetOptions{})
					if apierrors.IsNotFound(err) {
						return unmet("replicaset ng-rs does not exist", "ReplicaSet ng-rs 不存在")
					}
					if err != nil {
						return fmt.Errorf("get replicaset ng-rs: %w", err)
					}
					return wantOriginalPods(ctx, env, selector, string(rs.UID))
				},
				Explain: Text{
					En: "The ReplicaSet controller found 3 pods matching its selector without a controller and adopted them — it patched an ownerReference onto each — so it counted 3 replicas and created none. `ctl why replicaset/ng-rs` shows the adoption.",
					Zh: "ReplicaSet 控制器发现 3 个匹配其选择器且没有控制器的 Pod，就收养了它们（给每个 Pod 打上 ownerReference 补丁），于是数到 3 个副本，没有新建。`ctl why replicaset/ng-rs` 显示这次收养。",
				},
				Hints: []Text{{En: "ctl apply -f {dir}/nginx-rs.yaml", Zh: "ctl apply -f {dir}/nginx-rs.yaml"}},
			},
			{
				Title:    Text{En: "Delete it with its pods", Zh: "级联删除"},
				Do:       Text{En: "Delete ng-rs normally: cascading deletion takes the pods along.", Zh: "正常删除 ng-rs：级联删除会把 Pod 一起删掉。"},
				Commands: []Command{{Line: "ctl delete replicaset ng-rs"}, {Line: "ctl get pods -l replicaset=test"}},
				Check: func(ctx context.Context, env *Env) error {
					if err := absent(ctx, env.Client, client.ReplicaSetsResource, "default", "ng-rs"); err != nil {
						return err
					}
					pods, err := livePods(ctx, env.Client, "default", selector)
					if err != nil {
						return err
					}
					if len(pods) > 0 {
						return unmet("%d pods of ng-rs remain", "ng-rs 还剩 %d 个 Pod", len(pods))
					}
					return nil
				},
				Explain: Text{
					En: "ctl delete uses background propagation: ng-rs went at once, and the garbage collector, seeing the pods' owner gone, deleted them. With --cascade=foreground the owner would wait, with the foregroundDeletion finalizer, until its dependents were gone.",
					Zh: "ctl delete 默认使用后台级联删除：ng-rs 立即删除，垃圾回收器发现 Pod 的属主已不存在，就删除了它们。若用 --cascade=foreground，属主会带着 foregroundDeletion finalizer 等到从属对象全部删除后才消失。",
				},
				Hints: []Text{{En: "ctl delete replicaset ng-rs", Zh: "ctl delete replicaset ng-rs"}},
			},
		},
		Cleanup: []Object{
			{Resource: client.ReplicaSetsResource, Namespace: "default", Name: "ng-rs"},
			{Resource: client.PodsResource, Namespace: "default", Selector: selector},
		},
	}
}

// wantOriginalPods wants exactly the pods of the first step, owned by the
// ReplicaSet with ownerUID ("" for no owner at all).
func wantOriginalPods(ctx context.Context, env *Env, selector, ownerUID string) error {
	pods, err := livePods(ctx, env.Client, "default", selector)
	if err != nil {
		return err
	}
	original := strings.Split(env.Memo["deletion.pods"], ",")
	if len(pods) != len(original) {
		return unmet("%d pods match %s; want the %d of the first step", "%[2]s 匹配到 %[1]d 个 Pod；期望是第一步的 %[3]d 个", len(pods), selector, len(original))
	}
	for _, p := range pods {
		if !slices.Contains(original, string(p.UID)) {
			return unmet("pod %s is new; want the pods of the first step", "Pod %s 是新建的；期望是第一步的那些 Pod", p.Name)
		}
		var owner string
		for _, ref := range p.OwnerReferences {
			owner = string(ref.UID)
		}
		if owner != ownerUID {
			if ownerUID == "" {
				return unmet("pod %s still has an owner", "Pod %s 仍有属主", p.Name)
			}
			return unmet("pod %s is not owned by the new ng-rs yet", "Pod %s 还没有被新的 ng-rs 收养", p.Name)
		}
	}
	return nil
}
