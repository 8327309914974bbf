package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"kplane/pkg/client"
	"kplane/pkg/debug"
)

// relistLab compacts etcd under the informers: every watch ends with 410
// Gone, every reflector lists again, and the controllers carry on.
func relistLab() *Lab {
	return &Lab{
		Name:  "relist",
		Title: Text{En: "Informers relist after an etcd compaction", Zh: "etcd 压缩后 informer 重新 list"},
		Intro: Text{
			En: "An informer lists once, then watches from that resourceVersion. When etcd has compacted the revisions a watch would resume from, the apiserver answers 410 Gone; the reflector then lists again and replaces its store, and the controllers never notice.",
			Zh: "informer 先 list 一次，然后从那个 resourceVersion 开始 watch。若 etcd 已经压缩（compact）掉了 watch 要续接的历史版本，apiserver 会返回 410 Gone；reflector 于是重新 list 并替换本地缓存，控制器对此毫无察觉。",
		},
		Steps: []Step{
			{
				Title: Text{En: "A Deployment to keep an eye on", Zh: "创建一个用来观察的 Deployment"},
				Do:    Text{En: "Create the Deployment relist with 2 replicas.", Zh: "创建 2 个副本的 Deployment relist。"},
				Commands: []Command{
					{Line: "ctl create deployment relist --image nginx --replicas 2"},
					{Line: "ctl rollout status deployment/relist"},
					{Line: "ctl etcd history deployment/relist"},
				},
				Check: func(ctx context.Context, env *Env) error {
					if err := deploymentDone(ctx, env.Client, "default", "relist", 2); err != nil {
						return err
					}
					d, err := env.Client.Deployments("default").Get(ctx, "relist", client.GetOptions{})
					if err != nil {
						return fmt.Errorf("get deployment relist: %w", err)
					}
					env.Memo["relist.resourceVersion"] = d.ResourceVersion
					return nil
				},
				Explain: Text{
					En: "Every controller learned of it through a watch event. `ctl etcd history deployment/relist` lists the revisions its writes made — the history a compaction throws away.",
					Zh: "每个控制器都是通过 watch 事件得知它的。`ctl etcd history deployment/relist` 列出它的写入产生的各个 revision——压缩会丢掉的正是这段历史。",
				},
				Hints: []Text{{En: "ctl create deployment relist --image nginx --replicas 2", Zh: "ctl create deployment relist --image nginx --replicas 2"}},
			},
			{
				Title: Text{En: "Compact, then scale", Zh: "压缩，然后扩容"},
				Do:    Text{En: "Compact etcd (every watch gets 410 Gone), then scale relist to 3: the controllers still see the change.", Zh: "压缩 etcd（所有 watch 都收到 410 Gone），再把 relist 扩容到 3：控制器依然能看到这次变更。"},
				Commands: []Command{
					{Line: "ctl fault compact"},
					{Line: "ctl scale deployment relist --replicas 3"},
					{Line: "ctl rollout status deployment/relist"},
				},
				Check: func(ctx context.Context, env *Env) error {
					if err := wantCompactedSince(ctx, env); err != nil {
						return err
					}
					return deploymentDone(ctx, env.Client, "default", "relist", 3)
				},
				Explain: Text{
					En: "After the compaction each reflector's watch ended; its next watch from the old resourceVersion got 410 Gone (\"too old resource version\"), so it listed again at the current revision and replaced its store — the Replace in the DeltaFIFO, with a Sync delta for every object. The scale then arrived on the new watch, the deployment controller queued default/relist (`ctl queues`) and the ReplicaSet grew to 3. `ctl trace deployment/relist` shows the write reaching each informer.",
					Zh: "压缩之后每个 reflector 的 watch 都被关闭；它用旧的 resourceVersion 再次 watch 时得到 410 Gone（too old resource version），于是在当前 revision 重新 list 并替换本地缓存——即 DeltaFIFO 的 Replace，每个对象一个 Sync delta。随后的扩容经由新的 watch 到达，deployment 控制器把 default/relist 放入队列（`ctl queues`），ReplicaSet 扩到 3 个。`ctl trace deployment/relist` 显示这次写入到达每个 informer 的过程。",
				},
				Hints: []Text{{En: "ctl fault compact, then ctl scale deployment relist --replicas 3", Zh: "先 ctl fault compact，再 ctl scale deployment relist --replicas 3"}},
			},
		},
		Cleanup: []Object{{Resource: client.DeploymentsResource, Namespace: "default", Name: "relist"}},
	}
}

// wantCompactedSince wants etcd compacted past the resourceVersion the
// Deployment had at the first step, read from the apiserver's debug API
// (what `ctl etcd history` shows): its history up to then is gone.
func wantCompactedSince(ctx context.Context, env *Env) error {
	before, err := strconv.ParseInt(env.Memo["relist.resourceVersion"], 10, 64)
	if err != nil {
		return unmet("the first step has not recorded relist's resourceVersion; start the lab again",
			"第一步没有记录 relist 的 resourceVersion；请重新开始本实验")
	}
	query := url.Values{"key": {"/registry/deployments/default/relist"}, "limit": {"1"}}
	_, body, err := env.Client.Do(ctx, http.MethodGet, debug.PathEtcdHistory+"?"+query.Encode(), nil, nil)
	if err != nil {
		return fmt.Errorf("read the etcd history of deployment relist: %w", err)
	}
	var history debug.EtcdHistory
	if err := json.Unmarshal(body, &history); err != nil {
		return fmt.Errorf("decode the etcd history of deployment relist: %w", err)
	}
	if history.CompactRevision < before {
		return unmet("etcd was not compacted since the first step (compacted at revision %d; relist was at %d)",
			"第一步之后 etcd 还没有压缩过（压缩点为 revision %d，relist 当时为 %d）", history.CompactRevision, before)
	}
	return nil
}
