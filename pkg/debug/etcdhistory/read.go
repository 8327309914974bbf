package etcdhistory

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"kplane/pkg/debug"
)

// PageSize is how many keys ListKeys asks for at a time: kubectl's
// --chunk-size default.
const PageSize = 500

// GetFunc calls one of the apiserver's debug routes (path with query)
// and decodes its JSON answer into v.
type GetFunc func(ctx context.Context, path string, query url.Values, v any) error

// ListKeys reads every page of keys under prefix into one list, read at
// the first page's revision.
func ListKeys(ctx context.Context, get GetFunc, prefix string) (debug.EtcdKeyList, error) {
	query := url.Values{"prefix": {prefix}, "limit": {strconv.Itoa(PageSize)}}
	var all debug.EtcdKeyList
	for {
		var page debug.EtcdKeyList
		if err := get(ctx, debug.PathEtcdKeys, query, &page); err != nil {
			return debug.EtcdKeyList{}, fmt.Errorf("list etcd keys under %s: %w", prefix, err)
		}
		if all.Revision == 0 {
			all = page
		} else {
			all.Keys = append(all.Keys, page.Keys...)
		}
		if page.Continue == "" {
			all.Continue, all.RemainingKeys = "", 0
			return all, nil
		}
		query.Set("continue", page.Continue)
	}
}

// Change is the CHANGE cell of one revision, given the value before it
// (nil when unknown: compacted, left out, or deleted).
func Change(r debug.EtcdRevision, previous json.RawMessage) string {
	switch {
	case r.Event == debug.EtcdDelete:
		return "(deleted)"
	case r.Event == debug.EtcdCreate:
		return fmt.Sprintf("(created, %d bytes)", r.ValueSize)
	case previous == nil:
		return "(the value before is not kept)"
	}
	return DescribeChange(previous, r.Value)
}

// Changes is the CHANGE cell of each of h's revisions, in order: the
// first compares with the value kept at the compaction point, unless
// older changes were left out.
func Changes(h debug.EtcdHistory) []string {
	var previous json.RawMessage
	if h.AtCompaction != nil && h.Omitted == 0 {
		previous = h.AtCompaction.Value
	}
	changes := make([]string, len(h.Revisions))
	for i, r := range h.Revisions {
		changes[i] = Change(r, previous)
		previous = r.Value
	}
	return changes
}
