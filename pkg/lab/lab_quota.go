package lab

import (
	"context"
	"fmt"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// quotaLab is a ResourceQuota refusing pods: the quota admission plugin
// says no at the apiserver, and the ReplicaSet controller reports it.
func quotaLab() *Lab {
	return &Lab{
		Name:  "quota",
		Title: Text{En: "ResourceQuota refuses a third pod", Zh: "资源配额拒绝第三个 Pod"},
		Intro: Text{
			En: "A ResourceQuota caps what a namespace may hold. The check happens in the apiserver, at admission, before anything is stored: a pod over the quota is refused with 403 Forbidden, whoever creates it.",
			Zh: "ResourceQuota（资源配额）限制一个命名空间能拥有的资源。检查发生在 apiserver 的准入阶段、写入 etcd 之前：超出配额的 Pod 会被以 403 Forbidden 拒绝，不论是谁创建的。",
		},
		Steps: []Step{
			{
				Title: Text{En: "A namespace with a quota of 2 pods", Zh: "创建配额为 2 个 Pod 的命名空间"},
				Do:    Text{En: "Create the namespace quota-lab and a quota of 2 pods in it.", Zh: "创建命名空间 quota-lab，并为它设置 2 个 Pod 的配额。"},
				Commands: []Command{
					{Line: "ctl create namespace quota-lab"},
					{Line: "ctl create quota pods -n quota-lab --hard=pods=2"},
					{Line: "ctl describe quota pods -n quota-lab"},
				},
				Check: checkQuotaCounted,
				Explain: Text{
					En: "The resource quota controller computed the quota's status: hard (the limits it enforces) and used (what the namespace holds now, 0 pods). The quota admission plugin in the apiserver compares every new pod with that status and updates used as it admits.",
					Zh: "资源配额控制器计算出配额的 status：hard（生效的上限）和 used（命名空间当前的用量，0 个 Pod）。apiserver 中的配额准入插件用这个 status 检查每个新 Pod，放行时同时更新 used。",
				},
				Hints: []Text{{En: "ctl create namespace quota-lab, then ctl create quota pods -n quota-lab --hard=pods=2", Zh: "先 ctl create namespace quota-lab，再 ctl create quota pods -n quota-lab --hard=pods=2"}},
			},
			{
				Title: Text{En: "Ask for 3 pods", Zh: "申请 3 个 Pod"},
				Do: Text{
					En: "Create a Deployment of 3 replicas in quota-lab: 2 pods are admitted, the third is refused. A bare pod is refused too; that command fails, and that is the lesson.",
					Zh: "在 quota-lab 中创建 3 副本的 Deployment：2 个 Pod 被放行，第三个被拒绝。直接创建一个 Pod 同样被拒绝——那条命令会失败，这正是本步骤要看的。",
				},
				Commands: []Command{
					{Line: "ctl create deployment capped -n quota-lab --image nginx --replicas 3"},
					{Line: "ctl describe replicaset -n quota-lab -l app=capped"},
					{Line: "ctl run extra -n quota-lab --image nginx", Fails: true},
				},
				Check: checkQuotaRefused,
				Explain: Text{
					En: "The ReplicaSet controller tried to create 3 pods; the apiserver admitted 2 and answered the third with 403 Forbidden, \"exceeded quota\". The controller recorded a FailedCreate Event and a ReplicaFailure condition on the ReplicaSet, and keeps retrying with back-off: `ctl queues` shows the key's retries, `ctl why replicaset/<name> -n quota-lab` the refusal.",
					Zh: "ReplicaSet 控制器尝试创建 3 个 Pod；apiserver 放行了 2 个，对第三个返回 403 Forbidden（exceeded quota）。控制器记录一条 FailedCreate 事件，并在 ReplicaSet 上设置 ReplicaFailure 条件，然后带退避不断重试：`ctl queues` 可以看到这个 key 的重试次数，`ctl why replicaset/<名字> -n quota-lab` 可以看到拒绝原因。",
				},
				Hints: []Text{{En: "ctl create deployment capped -n quota-lab --image nginx --replicas 3", Zh: "ctl create deployment capped -n quota-lab --image nginx --replicas 3"}},
			},
			{
				Title: Text{En: "Fit the quota", Zh: "回到配额以内"},
				Do:    Text{En: "Scale the Deployment to 2: it fits, and the failure condition clears.", Zh: "把 Deployment 缩到 2 个副本：符合配额，失败条件随之清除。"},
				Commands: []Command{
					{Line: "ctl scale deployment capped -n quota-lab --replicas 2"},
					{Line: "ctl get replicasets -n quota-lab"},
				},
				Check: checkQuotaFits,
				Explain: Text{
					En: "The new replica count reached the ReplicaSet at once (an update event, not a back-off retry); its sync found 2 pods for 2 replicas, created nothing, and removed the ReplicaFailure condition.",
					Zh: "新的副本数立即传到 ReplicaSet（通过更新事件，而不是退避重试）；同步时它发现 2 个副本已有 2 个 Pod，不再创建，并移除了 ReplicaFailure 条件。",
				},
				Hints: []Text{{En: "ctl scale deployment capped -n quota-lab --replicas 2", Zh: "ctl scale deployment capped -n quota-lab --replicas 2"}},
			},
		},
		Cleanup: []Object{{Resource: client.NamespacesResource, Name: "quota-lab"}},
	}
}

// checkQuotaCounted wants the quota pods with its status computed.
func checkQuotaCounted(ctx context.Context, env *Env) error {
	q, err := env.Client.ResourceQuotas("quota-lab").Get(ctx, "pods", client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return unmet("resourcequota pods does not exist in quota-lab", "quota-lab 中没有 ResourceQuota pods")
	}
	if err != nil {
		return fmt.Errorf("get resourcequota pods: %w", err)
	}
	hard, ok := q.Status.Hard[api.ResourcePods]
	if !ok || hard.Value() != 2 {
		return unmet("the quota's status does not say hard pods=2 yet", "配额的 status 还没有显示 hard pods=2")
	}
	return nil
}

// checkQuotaRefused wants capped's ReplicaSet at 2 pods with the quota's
// refusal in its ReplicaFailure condition.
func checkQuotaRefused(ctx context.Context, env *Env) error {
	rs, err := cappedReplicaSet(ctx, env.Client)
	if err != nil || rs == nil {
		return err
	}
	if err := wantReadyPods(ctx, env.Client, "quota-lab", "app=capped", 2); err != nil {
		return err
	}
	for _, c := range rs.Status.Conditions {
		if c.Type == api.ReplicaSetReplicaFailure && c.Status == api.ConditionTrue && strings.Contains(c.Message, "exceeded quota") {
			return nil
		}
	}
	return unmet("replicaset %s has no ReplicaFailure condition for the quota yet", "ReplicaSet %s 还没有因配额而出现 ReplicaFailure 条件", rs.Name)
}

// checkQuotaFits wants capped at 2 replicas, without a failure.
func checkQuotaFits(ctx context.Context, env *Env) error {
	if err := deploymentDone(ctx, env.Client, "quota-lab", "capped", 2); err != nil {
		return err
	}
	rs, err := cappedReplicaSet(ctx, env.Client)
	if err != nil || rs == nil {
		return err
	}
	for _, c := range rs.Status.Conditions {
		if c.Type == api.ReplicaSetReplicaFailure {
			return unmet("replicaset %s still has its ReplicaFailure condition", "ReplicaSet %s 仍有 ReplicaFailure 条件", rs.Name)
		}
	}
	return nil
}

// cappedReplicaSet finds the ReplicaSet of the Deployment capped; an
// *Unmet when there is none yet.
func cappedReplicaSet(ctx context.Context, c *client.Client) (*api.ReplicaSet, error) {
	list, err := c.ReplicaSets("quota-lab").List(ctx, client.ListOptions{LabelSelector: "app=capped"})
	if err != nil {
		return nil, fmt.Errorf("list replicasets in quota-lab: %w", err)
	}
	if len(list.Items) == 0 {
		return nil, unmet("deployment capped has no ReplicaSet in quota-lab yet", "quota-lab 中还没有 Deployment capped 的 ReplicaSet")
	}
	return list.Items[0], nil
}
