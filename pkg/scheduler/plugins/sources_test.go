package plugins

import "testing"

func TestEveryDefaultPluginNamesItsUpstreamSource(t *testing.T) {
	profile := DefaultProfile(nil, nil, nil, nil)
	var names []string
	for _, p := range profile.PreFilters {
		names = append(names, p.Name())
	}
	for _, p := range profile.Filters {
		names = append(names, p.Name())
	}
	for _, p := range profile.Scores {
		names = append(names, p.Name())
	}
	for _, name := range names {
		if UpstreamSource(name) == "" {
			t.Errorf("plugin %s has no upstream source", name)
		}
	}
}
