package lab

import "strings"

// Messages are the words around the labs that `ctl lab` and the web page
// print, in both languages like the labs themselves.
var Messages = struct {
	Step, Then, Passed, NotYet, Hint, NoHint, Finished, Reset, NoLab, Started, Files, Commands Text
}{
	Step:     Text{En: "Step %d/%d: %s", Zh: "第 %d/%d 步：%s"},
	Then:     Text{En: "Then: ctl lab check", Zh: "完成后运行：ctl lab check"},
	Passed:   Text{En: "✓ Step %d passed: %s", Zh: "✓ 第 %d 步通过：%s"},
	NotYet:   Text{En: "✗ Step %d is not done yet: %s", Zh: "✗ 第 %d 步还没有完成：%s"},
	Hint:     Text{En: "Hint: %s", Zh: "提示：%s"},
	NoHint:   Text{En: "more hints: ctl lab hint", Zh: "更多提示：ctl lab hint"},
	Finished: Text{En: "Lab %s finished. ctl lab reset removes what it created.", Zh: "实验 %s 已完成。ctl lab reset 会删除它创建的对象。"},
	Reset:    Text{En: "Lab %s reset: its objects and the progress are gone.", Zh: "实验 %s 已重置：它创建的对象和进度都已删除。"},
	NoLab:    Text{En: "No lab started: ctl lab list, then ctl lab start NAME.", Zh: "还没有开始任何实验：先 ctl lab list，再 ctl lab start 名字。"},
	Started:  Text{En: "Lab %s: %s", Zh: "实验 %s：%s"},
	Files:    Text{En: "Its files are in %s/.", Zh: "实验文件在 %s/ 目录下。"},
	Commands: Text{En: "Run:", Zh: "运行："},
}

// ExpandDir puts dir where a text says "{dir}" (commands and hints).
func ExpandDir(s, dir string) string {
	return strings.ReplaceAll(s, "{dir}", dir)
}

// DefaultDir is where `ctl lab start` writes a lab's files unless told
// otherwise (--dir), and what "{dir}" stands for in a lab started from the
// web page, which writes no files: the commands read the same either way.
const DefaultDir = "kplane-lab"

// FirstHint is what a failed check offers: the step's first hint, with
// dir for "{dir}", and whether `ctl lab hint` has more. `ctl lab check`
// and the web page both answer a failed check with it.
func FirstHint(step *Step, dir string, lang Lang) (hint string, more bool) {
	if step == nil || len(step.Hints) == 0 {
		return "", false
	}
	return ExpandDir(step.Hints[0].In(lang), dir), len(step.Hints) > 1
}
