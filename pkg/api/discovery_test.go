package api

import (
	"encoding/json"
	"strings"
	"testing"
)

// An EndpointSlice port gets a name ("") and TCP when left unset, as on a
// real cluster; explicit values stay.
func TestSetDefaultsEndpointSlice(t *testing.T) {
	slice := decodeJSON[EndpointSlice](t, `{
		"metadata": {"name": "web-abcde"},
		"addressType": "IPv4",
		"endpoints": [{"addresses": ["10.244.1.2"]}],
		"ports": [{"port": 80}, {"name": "dns", "port": 53, "protocol": "UDP"}]
	}`)
	SetDefaults(slice)
	assertJSON(t, "defaulted EndpointSlice", slice, `{
		"metadata": {"name": "web-abcde", "creationTimestamp": null},
		"addressType": "IPv4",
		"endpoints": [{"addresses": ["10.244.1.2"], "conditions": {}}],
		"ports": [{"name": "", "port": 80, "protocol": "TCP"}, {"name": "dns", "port": 53, "protocol": "UDP"}]
	}`)
	assertIdempotent(t, slice)
}

// endpoints and ports are always on the wire, null when empty, as a real
// cluster prints a slice without backends.
func TestEndpointSliceEmptyListsAreNull(t *testing.T) {
	data, err := json.Marshal(EndpointSlice{AddressType: AddressTypeIPv4})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"endpoints":null`, `"ports":null`, `"addressType":"IPv4"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %s", data, want)
		}
	}
}
