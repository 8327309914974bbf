package apiserver

// Tables. `kubectl get` asks for meta.k8s.io/v1 Tables and prints their
// columns as they come, so the columns of every kind are defined once, on
// the server (package printers).

import (
	"encoding/json"
	"net/http"

	"kplane/pkg/api"
	"kplane/pkg/apiserver/printers"
	"kplane/pkg/apiserver/response"
)

// writeObject answers with one object, as JSON or as a one-row Table.
func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, code int, res *resource, so *storedObject) {
	if response.TableRequested(r) {
		t := s.table(res, []*storedObject{so}, queryOf(r).string("includeObject"), true)
		t.ResourceVersion = so.obj.GetObjectMeta().ResourceVersion
		response.WriteJSONAs(w, response.ContentTypeTable, t)
		return
	}
	response.WriteRaw(w, code, response.ContentTypeJSON, so.raw)
}

// table renders objects as a meta.k8s.io/v1 Table with the kind's columns.
// includeObject is None, Metadata (the default) or Object, as upstream.
func (s *Server) table(res *resource, objs []*storedObject, includeObject string, withColumns bool) *api.Table {
	t := &api.Table{TypeMeta: api.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}, Rows: []api.TableRow{}}
	if withColumns {
		t.ColumnDefinitions = printers.Columns(res.kind)
		if res.custom != nil {
			t.ColumnDefinitions = customColumns(res.custom.columns)
		}
	}
	now := s.clock.Now()
	for _, so := range objs {
		var row api.TableRow
		if res.custom != nil {
			row = customRow(res.custom.columns, so.obj.(*api.CustomObject), now)
		} else {
			row = printers.Row(so.obj, now)
		}
		switch includeObject {
		case "None":
			row.Object = nil
		case "Object":
			row.Object = json.RawMessage(so.raw)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
