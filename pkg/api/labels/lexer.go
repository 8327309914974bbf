package labels

// token is the kind of one lexical item of a selector string.
type token int

const (
	endOfString  token = iota
	identifier         // a key or a value: a run of non-special, non-blank bytes
	comma              // ,
	openParen          // (
	closeParen         // )
	doesNotExist       // !
	equals             // =
	doubleEquals       // ==
	notEquals          // !=
	greaterThan        // >
	lessThan           // <
	inKeyword          // in
	notInKeyword       // notin
)

// item is one token with the text it was read from; the text is what error
// messages quote ("found 'x', expected: …").
type item struct {
	tok  token
	text string
}

// symbols maps every operator and punctuation spelling to its token. The
// lexer reads the longest spelling it can, so "!=" is one token, not "!" "=".
var symbols = map[string]token{
	",": comma, "(": openParen, ")": closeParen,
	"!": doesNotExist, "=": equals, "==": doubleEquals, "!=": notEquals,
	">": greaterThan, "<": lessThan,
}

// keywords are identifiers with a meaning between a key and its values. The
// parser turns them back into identifiers where a value is expected, so that
// `mode in (in, notin)` selects the values "in" and "notin".
var keywords = map[string]token{"in": inKeyword, "notin": notInKeyword}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isSymbol(c byte) bool {
	switch c {
	case ',', '(', ')', '!', '=', '>', '<':
		return true
	}
	return false
}

// lex splits a selector string into items, ending with endOfString. Blanks
// separate items and are otherwise ignored, which is how upstream allows
// `env in ( prod , staging )`.
func lex(s string) []item {
	var items []item
	pos := 0
	for {
		for pos < len(s) && isBlank(s[pos]) {
			pos++
		}
		if pos == len(s) {
			return append(items, item{tok: endOfString})
		}
		start := pos
		if isSymbol(s[pos]) {
			pos++
			if pos < len(s) {
				if tok, ok := symbols[s[start:pos+1]]; ok {
					pos++
					items = append(items, item{tok: tok, text: s[start:pos]})
					continue
				}
			}
			items = append(items, item{tok: symbols[s[start:pos]], text: s[start:pos]})
			continue
		}
		for pos < len(s) && !isSymbol(s[pos]) && !isBlank(s[pos]) {
			pos++
		}
		text := s[start:pos]
		tok, isKeyword := keywords[text]
		if !isKeyword {
			tok = identifier
		}
		items = append(items, item{tok: tok, text: text})
	}
}
