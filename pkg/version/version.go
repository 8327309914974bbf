// Package version says which Kubernetes release kplane's API reproduces and
// how its binaries were built: what the apiserver serves at /version and
// what `ctl version` prints as the client's version.
package version

import "runtime"

// Info is the build information of a kplane binary, in the shape and field
// order of upstream's apimachinery version.Info.
type Info struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}

// Get returns the Info of this binary. kplane mirrors Kubernetes 1.32, so
// clients that check the server's minor version (kubectl's skew warning,
// Helm's kubeVersion constraints) treat it as a 1.32 cluster.
func Get() Info {
	return Info{
		Major:        "1",
		Minor:        "32",
		GitVersion:   "v1.32.0-kplane",
		GitCommit:    "kplane",
		GitTreeState: "clean",
		BuildDate:    "2026-11-22T00:00:00Z",
		GoVersion:    runtime.Version(),
		Compiler:     runtime.Compiler,
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
	}
}
