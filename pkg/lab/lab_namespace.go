package lab

import (
	"context"
	"fmt"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// namespaceLab deletes a namespace with a Deployment in it: the namespace
// controller empties it before it goes.
func namespaceLab() *Lab {
	return &Lab{
		Name:  "namespace",
		Title: Text{En: "Deleting a namespace deletes everything in it", Zh: "删除命名空间会删除其中的一切"},
		Intro: Text{
			En: "A namespace being deleted turns Terminating; the namespace controller deletes every object in it, and only when it is empty removes the kubernetes finalizer, letting the namespace go.",
			Zh: "被删除的命名空间先进入 Terminating 状态；命名空间控制器删除其中的所有对象，清空之后才移除 kubernetes finalizer，命名空间随之消失。",
		},
		Steps: []Step{
			{
				Title: Text{En: "Create a namespace with a Deployment", Zh: "创建命名空间和其中的 Deployment"},
				Do:    Text{En: "Create the namespace lab-ns and a Deployment of 2 pods in it.", Zh: "创建命名空间 lab-ns，并在其中创建一个 2 副本的 Deployment。"},
				Commands: []Command{
					{Line: "ctl create namespace lab-ns"},
					{Line: "ctl create deployment web -n lab-ns --image nginx --replicas 2"},
					{Line: "ctl get all -n lab-ns"},
				},
				Check: func(ctx context.Context, env *Env) error {
					return deploymentDone(ctx, env.Client, "lab-ns", "web", 2)
				},
				Explain: Text{
					En: "The namespace lifecycle admission plugin let the Deployment in because lab-ns is Active; the Deployment, ReplicaSet and pods all live under lab-ns in etcd (`ctl etcd ls /registry/pods/lab-ns`).",
					Zh: "lab-ns 处于 Active 状态，所以命名空间生命周期准入插件放行了 Deployment；Deployment、ReplicaSet 和 Pod 都存放在 etcd 的 lab-ns 之下（`ctl etcd ls /registry/pods/lab-ns`）。",
				},
				Hints: []Text{{En: "ctl create namespace lab-ns, then ctl create deployment web -n lab-ns --image nginx --replicas 2", Zh: "先 ctl create namespace lab-ns，再 ctl create deployment web -n lab-ns --image nginx --replicas 2"}},
			},
			{
				Title: Text{En: "Delete the namespace", Zh: "删除命名空间"},
				Do:    Text{En: "Delete lab-ns; ctl waits until it is gone.", Zh: "删除 lab-ns；ctl 会等到它真正消失。"},
				Commands: []Command{
					{Line: "ctl delete namespace lab-ns"},
					{Line: "ctl get namespaces"},
				},
				Check: func(ctx context.Context, env *Env) error {
					ns, err := env.Client.Namespaces().Get(ctx, "lab-ns", client.GetOptions{})
					if apierrors.IsNotFound(err) {
						return nil
					}
					if err != nil {
						return fmt.Errorf("get namespace lab-ns: %w", err)
					}
					return unmet("namespace lab-ns is still there (phase %s)", "命名空间 lab-ns 仍然存在（phase 为 %s）", ns.Status.Phase)
				},
				Explain: Text{
					En: "The apiserver set lab-ns's deletionTimestamp and the phase Terminating, and refused new objects in it. The namespace controller listed every namespaced resource, deleted what it found (the Deployment, its ReplicaSet, the pods, the ServiceAccount, the root CA ConfigMap), then removed the kubernetes finalizer; the apiserver then deleted the namespace. `ctl why namespace/lab-ns` shows what was left at each pass.",
					Zh: "apiserver 给 lab-ns 设置 deletionTimestamp，phase 变为 Terminating，并拒绝在其中新建对象。命名空间控制器遍历所有命名空间级资源，删除找到的对象（Deployment、ReplicaSet、Pod、ServiceAccount、根证书 ConfigMap），然后移除 kubernetes finalizer，apiserver 随即删除命名空间。`ctl why namespace/lab-ns` 显示每一轮还剩下什么。",
				},
				Hints: []Text{{En: "ctl delete namespace lab-ns", Zh: "ctl delete namespace lab-ns"}},
			},
		},
		Cleanup: []Object{{Resource: client.NamespacesResource, Name: "lab-ns"}},
	}
}
