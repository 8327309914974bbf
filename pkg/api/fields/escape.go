package fields

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// valueEscaper doubles backslashes first, then escapes the two characters
// that would otherwise end a value (",") or start an operator ("=").
var valueEscaper = strings.NewReplacer(`\`, `\\`, `,`, `\,`, `=`, `\=`)

// EscapeValue escapes a literal value for use in a field selector string, so
// that `a,b` becomes `a\,b`. It is upstream's fields.EscapeValue.
func EscapeValue(s string) string { return valueEscaper.Replace(s) }

// UnescapeValue turns an escaped value back into the literal one. The only
// escapes are `\\`, `\,` and `\=`; any other backslash sequence, a lone
// trailing backslash, or an unescaped "," or "=" is an error, as upstream's
// fields.UnescapeValue has it.
func UnescapeValue(s string) (string, error) {
	if !strings.ContainsAny(s, `\,=`) {
		return s, nil
	}
	// Bytes, not runes: every special character is ASCII, and walking bytes
	// keeps a value that is not valid UTF-8 exactly as it was sent.
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 == len(s) {
				return "", errors.New(`invalid field selector: invalid escape sequence: \`)
			}
			i++
			switch s[i] {
			case '\\', ',', '=':
				b.WriteByte(s[i])
			default:
				next, _ := utf8.DecodeRuneInString(s[i:])
				return "", fmt.Errorf("invalid field selector: invalid escape sequence: \\%c", next)
			}
		case ',', '=':
			// Upstream prints the character's code point here (44 for ',',
			// 61 for '='); kept so the message matches a real apiserver's.
			return "", fmt.Errorf("invalid field selector: unescaped character in value: %d", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
