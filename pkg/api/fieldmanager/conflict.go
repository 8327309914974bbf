package fieldmanager

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// Conflict is one field an apply would change that another manager owns.
type Conflict struct {
	// Manager is the entry owning the field.
	Manager Entry
	// Path is the field.
	Path Path
}

// Conflicts is an apply refused for its conflicts.
type Conflicts []Conflict

// Error is upstream's message (managedfields' getConflictMessage).
func (c *Conflicts) Error() string {
	list := *c
	if len(list) == 1 {
		return fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %s", describeManager(list[0].Manager), list[0].Path)
	}
	byManager := map[string][]Path{}
	for _, conflict := range list {
		name := describeManager(conflict.Manager)
		byManager[name] = append(byManager[name], conflict.Path)
	}
	names := make([]string, 0, len(byManager))
	for name := range byManager {
		names = append(names, name)
	}
	sort.Strings(names)
	var lines []string
	for _, name := range names {
		lines = append(lines, fmt.Sprintf("conflicts with %s:", name))
		for _, p := range byManager[name] {
			lines = append(lines, fmt.Sprintf("- %s", p))
		}
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(list), strings.Join(lines, "\n"))
}

// StatusError is the 409 upstream answers (errors.NewApplyConflict), a
// cause per field.
func (c *Conflicts) StatusError() *apierrors.StatusError {
	causes := make([]api.StatusCause, 0, len(*c))
	for _, conflict := range *c {
		causes = append(causes, api.StatusCause{Type: "FieldManagerConflict",
			Message: "conflict with " + describeManager(conflict.Manager), Field: conflict.Path.String()})
	}
	return &apierrors.StatusError{ErrStatus: api.Status{Status: "Failure", Code: http.StatusConflict,
		Reason: apierrors.ReasonConflict, Message: c.Error(), Details: &api.StatusDetails{Causes: causes}}}
}

// describeManager names a manager as upstream's printManager does: an
// Update names its version and time, since the same client may have
// written at several.
func describeManager(e Entry) string {
	name := fmt.Sprintf("%q", e.Manager)
	if e.Subresource != "" {
		name = fmt.Sprintf("%s with subresource %q", name, e.Subresource)
	}
	if e.Operation == OperationUpdate {
		if e.Time == nil {
			return fmt.Sprintf("%s using %s", name, e.APIVersion)
		}
		return fmt.Sprintf("%s using %s at %s", name, e.APIVersion, e.Time.UTC().Format(time.RFC3339))
	}
	return name
}
