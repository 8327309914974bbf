package humanize

import "fmt"

// Count renders n things of a regular noun: "1 informer", "3 informers".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
