package lab

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

func TestLangFromLocale(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want Lang
	}{
		{"nothing set", map[string]string{}, English},
		{"LANG zh_CN", map[string]string{"LANG": "zh_CN.UTF-8"}, Chinese},
		{"LANG en_US", map[string]string{"LANG": "en_US.UTF-8"}, English},
		{"LANG C", map[string]string{"LANG": "C"}, English},
		{"LC_MESSAGES wins over LANG", map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_TW.UTF-8"}, Chinese},
		{"LC_ALL wins over both", map[string]string{"LANG": "zh_CN.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8", "LC_ALL": "C.UTF-8"}, English},
		{"an empty LC_ALL does not count", map[string]string{"LC_ALL": "", "LANG": "zh_CN.GB18030"}, Chinese},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LangFromLocale(func(k string) string { return tc.env[k] }); got != tc.want {
				t.Errorf("LangFromLocale(%v) = %s, want %s", tc.env, got, tc.want)
			}
		})
	}
}

func TestParseLang(t *testing.T) {
	for in, want := range map[string]Lang{"en": English, "zh": Chinese, "ZH": Chinese, "zh_CN.UTF-8": Chinese, "en_GB": English} {
		if got, err := ParseLang(in); err != nil || got != want {
			t.Errorf("ParseLang(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := ParseLang("fr"); err == nil {
		t.Error("ParseLang(fr) succeeded; want an error naming en and zh")
	}
}

// hasHan reports whether s holds a Chinese character.
func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}

// verbs are the printf verbs of a format, without their argument indexes,
// sorted by what they print: a translation may reorder its arguments but
// must use the same kinds.
var verbRE = regexp.MustCompile(`%(\[\d+\])?[a-z]`)

func verbs(format string) map[string]int {
	out := map[string]int{}
	for _, v := range verbRE.FindAllString(format, -1) {
		out[v[len(v)-1:]]++
	}
	return out
}

// checkTranslated fails when t lacks a language, when the Chinese is not
// Chinese, or when the English is.
func checkTranslated(t *testing.T, where string, text Text) {
	t.Helper()
	switch {
	case strings.TrimSpace(text.En) == "":
		t.Errorf("%s: no English text (Chinese: %q)", where, text.Zh)
	case strings.TrimSpace(text.Zh) == "":
		t.Errorf("%s: no Chinese text (English: %q)", where, text.En)
	case hasHan(text.En):
		t.Errorf("%s: the English text holds Chinese: %q", where, text.En)
	case !hasHan(text.Zh) && text.Zh != text.En:
		// A hint that is only a command line is the same in both.
		t.Errorf("%s: the Chinese text is not Chinese: %q", where, text.Zh)
	}
}

func TestEveryTextHasBothLanguages(t *testing.T) {
	for _, l := range All() {
		checkTranslated(t, l.Name+" title", l.Title)
		checkTranslated(t, l.Name+" intro", l.Intro)
		for i, s := range l.Steps {
			where := l.Name + " step " + string(rune('1'+i))
			checkTranslated(t, where+" title", s.Title)
			checkTranslated(t, where+" do", s.Do)
			checkTranslated(t, where+" explain", s.Explain)
			if len(s.Hints) == 0 {
				t.Errorf("%s: no hint", where)
			}
			for _, h := range s.Hints {
				checkTranslated(t, where+" hint", h)
			}
		}
	}
	messages := reflect.ValueOf(Messages)
	for i := range messages.NumField() {
		name := messages.Type().Field(i).Name
		text := messages.Field(i).Interface().(Text)
		checkTranslated(t, "message "+name, text)
		if en, zh := verbs(text.En), verbs(text.Zh); !reflect.DeepEqual(en, zh) {
			t.Errorf("message %s: English verbs %v, Chinese %v", name, en, zh)
		}
	}
}

func TestTextfFormatsBothLanguages(t *testing.T) {
	got := Textf(Text{En: "%d pods in %s", Zh: "%[2]s 中有 %[1]d 个 Pod"}, 3, "default")
	if got.En != "3 pods in default" || got.Zh != "default 中有 3 个 Pod" {
		t.Errorf("Textf = %+v", got)
	}
	if got.In(Chinese) != got.Zh || got.In(English) != got.En || got.In("fr") != got.En {
		t.Errorf("In picks the wrong language")
	}
}
