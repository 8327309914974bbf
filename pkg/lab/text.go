package lab

import (
	"fmt"
	"strings"
)

// Lang is the language a lab is shown in.
type Lang string

// The languages every text of a lab is written in: English, and Chinese,
// the seeds' language.
const (
	English Lang = "en"
	Chinese Lang = "zh"
)

// Langs lists every supported language, in the order a test checks them.
var Langs = []Lang{English, Chinese}

// ParseLang reads a --lang value ("en", "zh", or a locale such as
// "zh_CN.UTF-8").
func ParseLang(s string) (Lang, error) {
	switch l := strings.ToLower(strings.TrimSpace(s)); {
	case strings.HasPrefix(l, "zh"):
		return Chinese, nil
	case strings.HasPrefix(l, "en"):
		return English, nil
	default:
		return "", fmt.Errorf("unknown language %q: want en or zh", s)
	}
}

// LangFromLocale picks the language from the locale variables the way
// POSIX programs pick their messages' language: the first of LC_ALL,
// LC_MESSAGES and LANG that is set decides; zh_CN.UTF-8, zh_TW and zh
// mean Chinese, anything else (C, POSIX, en_US.UTF-8, unset) English.
// getenv is os.Getenv outside tests.
func LangFromLocale(getenv func(string) string) Lang {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(name); v != "" {
			if strings.HasPrefix(strings.ToLower(v), "zh") {
				return Chinese
			}
			return English
		}
	}
	return English
}

// Text is one text of a lab in both languages, written side by side so
// that a change to one is seen next to the other.
type Text struct {
	En string
	Zh string
}

// In returns the text in lang (English for an unknown lang).
func (t Text) In(lang Lang) string {
	if lang == Chinese {
		return t.Zh
	}
	return t.En
}

// Textf formats both languages with the same arguments.
func Textf(t Text, args ...any) Text {
	return Text{En: fmt.Sprintf(t.En, args...), Zh: fmt.Sprintf(t.Zh, args...)}
}
