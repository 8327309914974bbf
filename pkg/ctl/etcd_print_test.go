package ctl

import (
	"bytes"
	"encoding/json"
	"testing"

	"kplane/pkg/debug"
)

func TestPrintEtcdHistoryTable(t *testing.T) {
	value := func(k string) json.RawMessage {
		return json.RawMessage(`{"kind":"ConfigMap","metadata":{"name":"app"},"data":{"k":"` + k + `"}}`)
	}
	tests := []struct {
		name    string
		history debug.EtcdHistory
		want    string
	}{
		{"create and updates", debug.EtcdHistory{Revisions: []debug.EtcdRevision{
			{Revision: 10, Event: "create", Version: 1, Value: value("v0"), ValueSize: 64},
			{Revision: 12, Event: "update", Version: 2, Value: value("v1")},
			{Revision: 15, Event: "delete"},
			{Revision: 16, Event: "create", Version: 1, Value: value("v2"), ValueSize: 64},
		}}, `REVISION   EVENT    CHANGE
10         create   (created, 64 bytes)
12         update   data.k: "v0" → "v1"
15         delete   (deleted)
16         create   (created, 64 bytes)
`},
		{"after a compaction", debug.EtcdHistory{CompactRevision: 20,
			AtCompaction: &debug.EtcdRevision{Revision: 12, Version: 2, Value: value("v1")},
			Revisions:    []debug.EtcdRevision{{Revision: 23, Event: "update", Version: 3, Value: value("v2")}},
		}, `REVISION   EVENT       CHANGE
12         kept        the value at the compaction point (version 2); its write was compacted away
20         compacted   etcd forgot every revision before 20
23         update      data.k: "v1" → "v2"
`},
		{"older changes left out", debug.EtcdHistory{Omitted: 5,
			Revisions: []debug.EtcdRevision{{Revision: 30, Event: "update", Version: 7, Value: value("v7")}},
		}, `REVISION   EVENT    CHANGE
…                   5 older changes left out (--limit)
30         update   (the value before is not kept)
`},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		if err := printEtcdHistory(&out, &errOut, tt.history, ""); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, out.String(), tt.want)
		}
	}

	var out, errOut bytes.Buffer
	_ = printEtcdHistory(&out, &errOut, debug.EtcdHistory{Key: "/registry/configmaps/default/x", CompactRevision: 40}, "")
	if want := "No history of /registry/configmaps/default/x: etcd keeps no revision of it since its compaction at revision 40.\n"; errOut.String() != want || out.Len() != 0 {
		t.Errorf("empty history: stdout %q, stderr %q; want stderr %q", out.String(), errOut.String(), want)
	}
}

func TestPrintEtcdKeysTable(t *testing.T) {
	list := debug.EtcdKeyList{Prefix: "/registry/configmaps/", Keys: []debug.EtcdKey{
		{Key: "/registry/configmaps/default/app", CreateRevision: 10, ModRevision: 16, Version: 4, ValueSize: 120},
		{Key: "/registry/configmaps/kube-system/x", CreateRevision: 3, ModRevision: 3, Version: 1, ValueSize: 99},
	}}
	var out, errOut bytes.Buffer
	_ = printEtcdKeys(&out, &errOut, list, "wide")
	want := `KEY                                  CREATE-REV   MOD-REV   VERSION   SIZE
/registry/configmaps/default/app     10           16        4         120
/registry/configmaps/kube-system/x   3            3         1         99
`
	if out.String() != want {
		t.Errorf("ls -o wide:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	_ = printEtcdKeys(&out, &errOut, debug.EtcdKeyList{Prefix: "/registry/widgets/"}, "")
	if out.Len() != 0 || errOut.String() != "No keys found under /registry/widgets/.\n" {
		t.Errorf("no keys: stdout %q, stderr %q", out.String(), errOut.String())
	}
}
