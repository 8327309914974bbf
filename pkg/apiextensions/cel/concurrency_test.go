package cel

import (
	"sync"
	"testing"
)

// TestValidateConcurrently runs one Validator from many goroutines, as the
// apiserver does for concurrent requests; run it with -race.
func TestValidateConcurrently(t *testing.T) {
	v := mustCompile(t, websiteSchema)
	good := mustObject(t, websiteObject)
	bad := mustObject(t, websiteObject)
	bad["spec"].(map[string]any)["replicas"] = float64(9)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				obj, wantErrs := good, 0
				if i%2 == 1 {
					obj, wantErrs = bad, 1
				}
				if errs := v.Validate(obj, nil); len(errs) != wantErrs {
					t.Errorf("got %q", messages(errs))
					return
				}
			}
		}()
	}
	wg.Wait()
}
