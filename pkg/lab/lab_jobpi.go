package lab

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// jobPiLab is the seeds' Job pi: five completions, two at a time, then
// the Job deleted with its pods.
func jobPiLab() *Lab {
	return &Lab{
		Name:  "job-pi",
		Title: Text{En: "Job pi: five completions, two pods at a time", Zh: "Job pi：完成 5 次，每次并行 2 个 Pod"},
		Intro: Text{
			En: "A Job runs pods until enough of them succeed. The seed's pi Job asks for 5 completions with parallelism 2: the Job controller keeps at most 2 pods running and creates the next one each time one succeeds.",
			Zh: "Job 负责批处理任务：运行 Pod，直到足够多的 Pod 成功结束。种子笔记里的 pi 任务要求完成 5 次（completions: 5）、并发 2 个（parallelism: 2）：Job 控制器最多同时保持 2 个 Pod 运行，每成功一个就再创建下一个。",
		},
		Files: []string{"job.yaml"},
		Steps: []Step{
			{
				Title: Text{En: "Run the Job", Zh: "运行 Job"},
				Do: Text{
					En: "Create the Job from the seed's YAML and wait until it completes.",
					Zh: "用种子笔记里的 YAML 创建 Job，等它完成。",
				},
				Commands: []Command{
					{Line: "ctl apply -f {dir}/job.yaml"},
					{Line: "ctl wait --for=condition=complete job/pi --timeout=60s"},
					{Line: "ctl get pods -l job-name=pi"},
				},
				Check: checkJobPiComplete,
				Explain: Text{
					En: "The apiserver stored the Job; the Job controller (in the controller-manager) saw it through its informer and created 2 pods (parallelism). The scheduler bound each to a node, the kubelet there ran it to Succeeded, and each success let the Job controller create the next pod, until 5 had succeeded and it set the Complete condition. See the pipeline with `ctl trace job/pi`, the controller's last decision with `ctl why job/pi`, and its workqueue with `ctl queues`.",
					Zh: "apiserver 把 Job 写入 etcd；controller-manager 里的 Job 控制器通过 informer 看到它，按并发数创建了 2 个 Pod。调度器把每个 Pod 绑定到节点上，该节点的 kubelet 把它运行到 Succeeded；每成功一个，Job 控制器就补建下一个，直到 5 个成功，再写上 Complete 条件。用 `ctl trace job/pi` 看这条流水线，用 `ctl why job/pi` 看控制器最近的决策，用 `ctl queues` 看它的工作队列。",
				},
				Hints: []Text{
					{En: "Apply the file the lab wrote: ctl apply -f {dir}/job.yaml", Zh: "应用本实验写出的文件：ctl apply -f {dir}/job.yaml"},
					{En: "ctl describe job pi shows how many pods succeeded so far; the Job needs 5.", Zh: "ctl describe job pi 可以看到目前成功了几个 Pod；Job 需要 5 个。"},
				},
			},
			{
				Title: Text{En: "Delete the Job and its pods", Zh: "删除 Job 及其 Pod"},
				Do: Text{
					En: "Delete the Job. Its finished pods go with it: they name the Job as their owner.",
					Zh: "删除 Job。已经结束的 Pod 也会一起被删掉：它们的 ownerReferences 指向这个 Job。",
				},
				Commands: []Command{
					{Line: "ctl delete job pi"},
					{Line: "ctl get pods -l job-name=pi"},
				},
				Check: checkJobPiDeleted,
				Explain: Text{
					En: "ctl delete asked for background propagation: the apiserver removed the Job at once, and the garbage collector, which watches every object with ownerReferences, found the pods' owner gone and deleted them. `ctl why pod/<name>` on a pod shows the garbage collector's decision while it lasts.",
					Zh: "ctl delete 使用后台（Background）级联删除：apiserver 立即删除 Job，垃圾回收器（Garbage Collector）监听所有带 ownerReferences 的对象，发现这些 Pod 的属主已经不在，就把它们删除。对某个 Pod 执行 `ctl why pod/<名字>` 可以看到垃圾回收器的决策。",
				},
				Hints: []Text{
					{En: "ctl delete job pi", Zh: "ctl delete job pi"},
				},
			},
		},
		Cleanup: []Object{{Resource: client.JobsResource, Namespace: "default", Name: "pi"}},
	}
}

// checkJobPiComplete wants the Job pi Complete with 5 succeeded pods.
func checkJobPiComplete(ctx context.Context, env *Env) error {
	job, err := env.Client.Jobs("default").Get(ctx, "pi", client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return unmet("job pi does not exist yet", "Job pi 还不存在")
	}
	if err != nil {
		return fmt.Errorf("get job pi: %w", err)
	}
	for _, c := range job.Status.Conditions {
		if c.Type == api.JobComplete && c.Status == api.ConditionTrue && job.Status.Succeeded == 5 {
			return nil
		}
	}
	return unmet("job pi: %d succeeded, %d active; not Complete yet",
		"Job pi：%d 个成功，%d 个运行中；还没有 Complete", job.Status.Succeeded, job.Status.Active)
}

// checkJobPiDeleted wants the Job and its pods gone.
func checkJobPiDeleted(ctx context.Context, env *Env) error {
	if err := absent(ctx, env.Client, client.JobsResource, "default", "pi"); err != nil {
		return err
	}
	pods, err := livePods(ctx, env.Client, "default", "job-name=pi")
	if err != nil {
		return err
	}
	if len(pods) > 0 {
		return unmet("job pi is gone but %d of its pods remain", "Job pi 已删除，但还剩 %d 个 Pod", len(pods))
	}
	return nil
}
