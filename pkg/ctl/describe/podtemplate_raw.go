package describe

import (
	"fmt"
	"strings"

	"kplane/pkg/api"
)

// PodTemplate renders a pod template the way `kubectl rollout history
// --revision=N` prints it: describe's "Pod Template:" section, written
// without the tabwriter. Upstream's printTemplate writes through a bare
// PrefixWriter, so a label and its value are separated by a raw tab rather
// than aligned. (Added for ctl's rollout verbs, which live outside this
// package.)
func PodTemplate(template *api.PodTemplateSpec) string {
	var b strings.Builder
	describePodTemplate(template, &rawWriter{out: &b}, Settings{})
	return b.String()
}

// rawWriter is a prefixWriter that writes straight through.
type rawWriter struct {
	out *strings.Builder
}

func (w *rawWriter) write(level int, format string, args ...any) {
	w.out.WriteString(escapeTerminal(strings.Repeat("  ", level) + fmt.Sprintf(format, args...)))
}

func (w *rawWriter) writeLine(args ...any) {
	w.out.WriteString(escapeTerminal(fmt.Sprintln(args...)))
}
