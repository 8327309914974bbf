package fault

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"kplane/pkg/client"
	"kplane/pkg/debug"
)

// Compact compacts etcd to now and makes the apiserver drop every watch
// (pkg/apiserver's fault_compact.go), through the apiserver's debug route
// reached with c; it answers the result and what to watch for.
func Compact(ctx context.Context, c *client.Client) (debug.CompactResult, string, error) {
	var result debug.CompactResult
	_, body, err := c.Do(ctx, http.MethodPost, debug.PathFaultCompact, nil, nil)
	if err != nil {
		return result, "", err
	}
	if err := json.Unmarshal(body, &result); err != nil {
		return result, "", fmt.Errorf("decode the apiserver's answer to %s: %w", debug.PathFaultCompact, err)
	}
	return result, CompactText(result), nil
}

// CompactText says what a compaction did and what to watch for.
func CompactText(result debug.CompactResult) string {
	return fmt.Sprintf("etcd compacted at revision %d; every watch was dropped (%d watches).\n", result.Revision, result.DroppedWatches) +
		"Watch the informers relist: `ctl trace <kind>/<name> --since 1m` shows list records after a 410 Gone,\n" +
		"and `ctl etcd history <kind>/<name>` shows the compaction point.\n"
}
