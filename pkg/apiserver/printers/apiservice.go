package printers

import (
	"fmt"
	"time"

	"kplane/pkg/api"
)

// apiServiceColumns are `kubectl get apiservices`' columns, as upstream's
// kube-aggregator prints them (pkg/registry/apiservice/etcd/etcd.go).
var apiServiceColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Service", "The reference to the service that hosts this API endpoint."),
	text("Available", "Whether this service is available."),
	ageColumn,
}

func apiServiceCells(s *api.APIService, now time.Time) []any {
	service := "Local"
	if s.Spec.Service != nil {
		service = s.Spec.Service.Namespace + "/" + s.Spec.Service.Name
	}
	return []any{s.Name, service, apiServiceAvailable(s), age(s.CreationTimestamp, now)}
}

// apiServiceAvailable is the AVAILABLE cell: "True", "False (Reason)", or
// "Unknown" before the aggregator has checked.
func apiServiceAvailable(s *api.APIService) string {
	for _, c := range s.Status.Conditions {
		if c.Type != api.APIServiceAvailable {
			continue
		}
		if c.Status == api.ConditionTrue {
			return string(c.Status)
		}
		return fmt.Sprintf("%s (%s)", c.Status, c.Reason)
	}
	return "Unknown"
}
