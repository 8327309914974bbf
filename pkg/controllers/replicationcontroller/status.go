package replicationcontroller

import "kplane/pkg/api"

// The shared logic computes status in the ReplicaSet's shape; these two
// functions carry it to and from a ReplicationController's, whose fields
// are the same (it has no terminatingReplicas) and whose conditions differ
// only in their Go type. Upstream converts the same way
// (pkg/controller/replication/conversion.go).

// toRSStatus returns rc's status in the ReplicaSet's shape.
func toRSStatus(s api.ReplicationControllerStatus) api.ReplicaSetStatus {
	out := api.ReplicaSetStatus{
		Replicas:             s.Replicas,
		FullyLabeledReplicas: s.FullyLabeledReplicas,
		ReadyReplicas:        s.ReadyReplicas,
		AvailableReplicas:    s.AvailableReplicas,
		ObservedGeneration:   s.ObservedGeneration,
	}
	for _, c := range s.Conditions {
		out.Conditions = append(out.Conditions, api.ReplicaSetCondition{
			Type:               api.ReplicaSetConditionType(c.Type),
			Status:             c.Status,
			LastTransitionTime: c.LastTransitionTime,
			Reason:             c.Reason,
			Message:            c.Message,
		})
	}
	return out
}

// toRCStatus returns a ReplicaSet-shaped status as a ReplicationController's.
func toRCStatus(s api.ReplicaSetStatus) api.ReplicationControllerStatus {
	out := api.ReplicationControllerStatus{
		Replicas:             s.Replicas,
		FullyLabeledReplicas: s.FullyLabeledReplicas,
		ReadyReplicas:        s.ReadyReplicas,
		AvailableReplicas:    s.AvailableReplicas,
		ObservedGeneration:   s.ObservedGeneration,
	}
	for _, c := range s.Conditions {
		out.Conditions = append(out.Conditions, api.ReplicationControllerCondition{
			Type:               api.ReplicationControllerConditionType(c.Type),
			Status:             c.Status,
			LastTransitionTime: c.LastTransitionTime,
			Reason:             c.Reason,
			Message:            c.Message,
		})
	}
	return out
}
