package printers

import "kplane/pkg/api"

// componentStatusColumns are `kubectl get componentstatuses`' columns.
var componentStatusColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Status", "Status of the component conditions"),
	text("Message", "Message of the component conditions"),
	text("Error", "Error of the component conditions"),
}

// componentStatusCells reads the Healthy condition: Healthy when True,
// Unhealthy when False or Unknown, and Unknown when there is none, as
// upstream prints it.
func componentStatusCells(cs *api.ComponentStatus) []any {
	status, message, errText := "Unknown", "", ""
	for _, c := range cs.Conditions {
		if c.Type != api.ComponentHealthy {
			continue
		}
		status = "Unhealthy"
		if c.Status == api.ConditionTrue {
			status = "Healthy"
		}
		message, errText = c.Message, c.Error
		break
	}
	return []any{cs.Name, status, message, errText}
}
