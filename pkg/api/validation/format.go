package validation

import "fmt"

// goSyntax prints a value as upstream's field errors print composite values:
// in Go syntax (%#v). Used through the Detail of a FieldError, whose own
// value printing is JSON.
func goSyntax(v any) string {
	return fmt.Sprintf("%#v", v)
}
