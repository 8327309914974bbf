package lab

import (
	"context"
	"fmt"

	"kplane/pkg/client"
)

// The controller-managers' leader-election Lease.
const (
	leaseNamespace = "kube-system"
	leaseName      = "kube-controller-manager"
)

// failoverLab kills the controller-manager that holds the lease and
// watches another take over.
func failoverLab() *Lab {
	return &Lab{
		Name:  "failover",
		Title: Text{En: "Leader-election failover of the controller-manager", Zh: "controller-manager 的选主与故障转移"},
		Intro: Text{
			En: "Only one controller-manager acts at a time: the one holding the Lease kube-system/kube-controller-manager, which it renews every few seconds. Kill it and, once the lease expires (15 s), another one takes it. Best with `ctl up --controller-managers 2 --virtual-clock`; with one, ctl up restarts it and the new process takes the lease.",
			Zh: "同一时刻只有一个 controller-manager 在工作：持有 Lease kube-system/kube-controller-manager 的那个（领导者），它每隔几秒续约一次。杀掉它，等租约过期（15 秒）后，另一个实例接管。建议用 `ctl up --controller-managers 2 --virtual-clock` 启动；只有一个实例时，ctl up 会重启它，由新进程取得租约。",
		},
		Prepare: func(ctx context.Context, env *Env) error {
			holder, _, err := leaseHolder(ctx, env.Client)
			if err != nil {
				return err
			}
			env.Memo["failover.holder"] = holder
			return nil
		},
		Steps: []Step{
			{
				Title: Text{En: "Kill the leader", Zh: "杀掉领导者"},
				Do:    Text{En: "See who holds the lease, kill that process without letting it release the lease, and move the clock past the lease's expiry.", Zh: "查看谁持有租约，以不释放租约的方式（KILL）杀掉该进程，再把时钟拨过租约的过期时间。"},
				Commands: []Command{
					{Line: "ctl get lease -n kube-system kube-controller-manager -o yaml"},
					{Line: "ctl fault kill controller-manager --signal KILL"},
					{Line: "ctl time advance 20s", Again: true},
					{Line: "ctl get lease -n kube-system kube-controller-manager -o yaml"},
				},
				Check: func(ctx context.Context, env *Env) error {
					holder, _, err := leaseHolder(ctx, env.Client)
					if err != nil {
						return err
					}
					if holder == "" || holder == env.Memo["failover.holder"] {
						return unmet("the lease is still held by %q, the leader when the lab started", "租约仍由实验开始时的领导者 %q 持有", holder)
					}
					return nil
				},
				Explain: Text{
					En: "A killed process cannot release its lease, so the others waited: each candidate's elector retries every 2 s, and took the lease only when renewTime + leaseDurationSeconds had passed on the cluster clock. The new holder's leaseTransitions grew by one, and its informers started from a fresh list before its controllers ran. `ctl queues` shows the new leader's queues filling as it resyncs everything.",
					Zh: "被 KILL 的进程来不及释放租约，其他候选者只能等待：每个候选者每 2 秒重试一次，直到集群时钟超过 renewTime + leaseDurationSeconds 才取得租约。新领导者使 leaseTransitions 加一，它的 informer 先完整 list 一遍，控制器才开始工作。`ctl queues` 可以看到新领导者重新同步所有对象时队列被填满。",
				},
				Hints: []Text{
					{En: "ctl fault kill controller-manager --signal KILL, then ctl time advance 20s", Zh: "先 ctl fault kill controller-manager --signal KILL，再 ctl time advance 20s"},
					{En: "Without --virtual-clock, wait 20 s: the lease must expire before anyone else may take it.", Zh: "没有 --virtual-clock 时请等待 20 秒：租约过期之前，别人不能取得它。"},
				},
			},
			{
				Title: Text{En: "The new leader works", Zh: "新领导者开始工作"},
				Do:    Text{En: "Create a Deployment: the new leader's controllers roll it out.", Zh: "创建一个 Deployment：由新领导者的控制器完成部署。"},
				Commands: []Command{
					{Line: "ctl create deployment after-failover --image nginx --replicas 2"},
					{Line: "ctl rollout status deployment/after-failover"},
				},
				Check: func(ctx context.Context, env *Env) error {
					return deploymentDone(ctx, env.Client, "default", "after-failover", 2)
				},
				Explain: Text{
					En: "Reconciliation went on under the new leader: its deployment and replicaset controllers acted on the new object. `ctl trace deployment/after-failover` names the controller-manager that did it.",
					Zh: "调谐在新领导者之下继续：它的 deployment 和 replicaset 控制器处理了这个新对象。`ctl trace deployment/after-failover` 会显示是哪个 controller-manager 做的。",
				},
				Hints: []Text{{En: "ctl create deployment after-failover --image nginx --replicas 2", Zh: "ctl create deployment after-failover --image nginx --replicas 2"}},
			},
		},
		Cleanup: []Object{{Resource: client.DeploymentsResource, Namespace: "default", Name: "after-failover"}},
	}
}

// leaseHolder reads the controller-managers' Lease: its holder and
// transitions.
func leaseHolder(ctx context.Context, c *client.Client) (string, int32, error) {
	lease, err := c.Leases(leaseNamespace).Get(ctx, leaseName, client.GetOptions{})
	if err != nil {
		return "", 0, fmt.Errorf("get lease %s/%s: %w", leaseNamespace, leaseName, err)
	}
	holder := ""
	if lease.Spec.HolderIdentity != nil {
		holder = *lease.Spec.HolderIdentity
	}
	return holder, derefInt32(lease.Spec.LeaseTransitions), nil
}
