package restmapper

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"kplane/pkg/client"
)

// Discovery comes in two forms, and ctl reads either:
//
//   - aggregated (apidiscovery.k8s.io/v2, what kubectl 1.32 asks for
//     first): /api and /apis, asked with the Accept header below, each
//     answer with every resource of every version of their groups. Two
//     requests in all.
//   - legacy: /api lists the core versions and /apis the groups; then one
//     APIResourceList per group version (/api/v1, /apis/apps/v1, …).
//
// A server that does not speak the aggregated form answers the same
// request with the legacy documents, which Discover then follows.
const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

// Discover reads the server's discovery documents and returns a Mapper.
func Discover(ctx context.Context, c *client.Client) (*Mapper, error) {
	var resources []APIResource
	for _, root := range []string{"/api", "/apis"} {
		_, body, err := c.Do(ctx, http.MethodGet, root, nil, map[string]string{"Accept": aggregatedAccept})
		if err != nil {
			return nil, fmt.Errorf("discovery %s: %w", root, err)
		}
		var kind struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(body, &kind); err != nil {
			return nil, fmt.Errorf("discovery %s: %w", root, err)
		}
		var found []APIResource
		switch kind.Kind {
		case "APIGroupDiscoveryList":
			found, err = parseAggregated(body)
		case "APIVersions":
			found, err = legacyCore(ctx, c, body)
		case "APIGroupList":
			found, err = legacyGroups(ctx, c, body)
		default:
			err = fmt.Errorf("unexpected discovery document of kind %q", kind.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("discovery %s: %w", root, err)
		}
		resources = append(resources, found...)
	}
	return New(resources), nil
}

// aggregatedList is apidiscovery.k8s.io/v2 APIGroupDiscoveryList, reduced
// to what ctl reads.
type aggregatedList struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		// Versions are in order of preference: the first is preferred.
		Versions []struct {
			Version   string `json:"version"`
			Resources []struct {
				Resource         string   `json:"resource"`
				SingularResource string   `json:"singularResource"`
				Scope            string   `json:"scope"`
				Verbs            []string `json:"verbs"`
				ShortNames       []string `json:"shortNames"`
				Categories       []string `json:"categories"`
				ResponseKind     struct {
					Kind string `json:"kind"`
				} `json:"responseKind"`
			} `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

func parseAggregated(body []byte) ([]APIResource, error) {
	var list aggregatedList
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, err
	}
	var out []APIResource
	for _, g := range list.Items {
		for i, v := range g.Versions {
			for _, r := range v.Resources {
				out = append(out, APIResource{
					Group: g.Metadata.Name, Version: v.Version, Name: r.Resource,
					SingularName: r.SingularResource, Kind: r.ResponseKind.Kind,
					ShortNames: r.ShortNames, Namespaced: r.Scope == "Namespaced",
					Verbs: r.Verbs, Categories: r.Categories, Preferred: i == 0,
				})
			}
		}
	}
	return out, nil
}

// resourceList is meta/v1 APIResourceList, one group version's resources.
type resourceList struct {
	Resources []struct {
		Name         string   `json:"name"`
		SingularName string   `json:"singularName"`
		Namespaced   bool     `json:"namespaced"`
		Kind         string   `json:"kind"`
		Verbs        []string `json:"verbs"`
		ShortNames   []string `json:"shortNames"`
		Categories   []string `json:"categories"`
	} `json:"resources"`
}

// legacyCore reads /api's versions and the first one's resources.
func legacyCore(ctx context.Context, c *client.Client, body []byte) ([]APIResource, error) {
	var versions struct {
		Versions []string `json:"versions"`
	}
	if err := json.Unmarshal(body, &versions); err != nil {
		return nil, err
	}
	var out []APIResource
	for i, v := range versions.Versions {
		found, err := legacyResources(ctx, c, "/api/"+v, "", v, i == 0)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// legacyGroups reads /apis's groups and each group version's resources.
func legacyGroups(ctx context.Context, c *client.Client, body []byte) ([]APIResource, error) {
	var groups struct {
		Groups []struct {
			Name     string `json:"name"`
			Versions []struct {
				Version string `json:"version"`
			} `json:"versions"`
			PreferredVersion struct {
				Version string `json:"version"`
			} `json:"preferredVersion"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(body, &groups); err != nil {
		return nil, err
	}
	var out []APIResource
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			found, err := legacyResources(ctx, c, "/apis/"+g.Name+"/"+v.Version, g.Name, v.Version, v.Version == g.PreferredVersion.Version)
			if err != nil {
				return nil, err
			}
			out = append(out, found...)
		}
	}
	return out, nil
}

// legacyResources reads one APIResourceList, leaving out subresources
// ("pods/status").
func legacyResources(ctx context.Context, c *client.Client, path, group, version string, preferred bool) ([]APIResource, error) {
	_, body, err := c.Do(ctx, http.MethodGet, path, nil, nil)
	if err != nil {
		return nil, err
	}
	var list resourceList
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []APIResource
	for _, r := range list.Resources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		out = append(out, APIResource{
			Group: group, Version: version, Name: r.Name, SingularName: r.SingularName, Kind: r.Kind,
			ShortNames: r.ShortNames, Namespaced: r.Namespaced, Verbs: r.Verbs, Categories: r.Categories,
			Preferred: preferred,
		})
	}
	return out, nil
}
